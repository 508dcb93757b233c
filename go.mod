module github.com/locksim/locksim

go 1.26.8

require (
	github.com/alicebob/miniredis/v2 v2.40.0
	github.com/anishathalye/porcupine v1.3.1
	github.com/yuin/gopher-lua v1.1.1
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/term v0.47.0
	pgregory.net/rapid v1.3.0
)

require golang.org/x/sys v0.49.0 // indirect
