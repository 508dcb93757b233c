package realtime

// StartedDirs lists the directories of the servers Execute started and has
// not stopped yet.
func StartedDirs() []string {
	started.Lock()
	defer started.Unlock()
	var out []string
	for srv := range started.set {
		out = append(out, srv.Dir())
	}
	return out
}
