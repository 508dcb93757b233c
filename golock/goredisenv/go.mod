module github.com/locksim/locksim/golock/goredisenv

go 1.26.8

replace (
	github.com/locksim/locksim => ../../
	github.com/locksim/locksim/golock => ../
)

require (
	github.com/locksim/locksim/golock v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/alicebob/miniredis/v2 v2.40.0 // indirect
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/locksim/locksim v0.0.0-00010101000000-000000000000 // indirect
	github.com/yuin/gopher-lua v1.1.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.49.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
