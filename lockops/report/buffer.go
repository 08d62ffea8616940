package report

import "github.com/zkscope/zkscope/lockops"

// reportBuffer is the size of the buffer a report of queues is written
// through: 256 kB for a big one, a few kB for a --watch frame of a lock
// or two (made for every frame: a buffer of 256 kB each time would be
// most of what such a frame allocates).
func reportBuffer(queues []lockops.Queue) int {
	n := 4 << 10
	for i := range queues {
		if n += 512 * (1 + len(queues[i].Participants) + len(queues[i].Problems)); n >= 256<<10 {
			return 256 << 10
		}
	}
	return n
}
