package foreign

// HostTimeout is hostTimeout, for the test of a worker that blocks.
var HostTimeout = &hostTimeout

// Reused counts Node workers served reset rather than started.
func Reused() int64 { return reused.Load() }

// DropResetWorkers kills every idle reset worker.
func DropResetWorkers() {
	resetWorkers.Lock()
	defer resetWorkers.Unlock()
	for k, idle := range resetWorkers.by {
		for _, w := range idle {
			w.kill()
		}
		delete(resetWorkers.by, k)
	}
}

// Refusal is why a worker of the program with this SHA-256 refused a
// reset, "" if none has.
func Refusal(sha string) string {
	v, _ := refusals.Load(sha)
	s, _ := v.(string)
	return s
}
