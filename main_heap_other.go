//go:build !linux

package main

// readyHeap does nothing where the kernel takes no huge-page advice.
func readyHeap(int) {}
