package zktest

// Kill ends the peer process at once (SIGKILL), as a crash would: its
// contenders' sessions are not closed, so the servers expire them after
// their timeout. It returns once the process has exited.
func (p *Peers) Kill() {
	p.cmd.Process.Kill()
	p.mu.Lock()
	for !p.exited {
		p.cond.Wait()
	}
	p.mu.Unlock()
}
