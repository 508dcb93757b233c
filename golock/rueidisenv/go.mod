module github.com/locksim/locksim/golock/rueidisenv

go 1.26.8

replace (
	github.com/locksim/locksim => ../../
	github.com/locksim/locksim/golock => ../
)

require (
	github.com/locksim/locksim v0.0.0-00010101000000-000000000000
	github.com/locksim/locksim/golock v0.0.0-00010101000000-000000000000
	github.com/redis/rueidis v1.0.79
)

require (
	github.com/alicebob/miniredis/v2 v2.40.0 // indirect
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/yuin/gopher-lua v1.1.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.49.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
