package demo

// Options and Run are the command's run and its options, for the
// external tests.
type Options = demoOptions

// Run is runDemo.
var Run = runDemo

// HerdOptions are the --herd flags' values.
type HerdOptions = herdOptions
