module github.com/locksim/locksim/examples/golibs

go 1.26.8

replace (
	github.com/locksim/locksim => ../..
	github.com/locksim/locksim/golock => ../../golock
	github.com/locksim/locksim/golock/goredisenv => ../../golock/goredisenv
	github.com/locksim/locksim/golock/goredisv8env => ../../golock/goredisv8env
	github.com/locksim/locksim/golock/redigoenv => ../../golock/redigoenv
	github.com/locksim/locksim/golock/rueidisenv => ../../golock/rueidisenv
)

require (
	github.com/bsm/redislock v0.9.4
	github.com/go-redsync/redsync/v4 v4.18.1
	github.com/gomodule/redigo v1.9.3
	github.com/locksim/locksim v0.0.0-00010101000000-000000000000
	github.com/locksim/locksim/golock v0.0.0-00010101000000-000000000000
	github.com/locksim/locksim/golock/goredisenv v0.0.0-00010101000000-000000000000
	github.com/locksim/locksim/golock/goredisv8env v0.0.0-00010101000000-000000000000
	github.com/locksim/locksim/golock/redigoenv v0.0.0-00010101000000-000000000000
	github.com/locksim/locksim/golock/rueidisenv v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.23.0
	github.com/redis/rueidis/rueidiscompat v1.0.79
)

require (
	github.com/alicebob/miniredis/v2 v2.40.0 // indirect
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/go-redis/redis/v8 v8.11.5 // indirect
	github.com/redis/rueidis v1.0.79 // indirect
	github.com/yuin/gopher-lua v1.1.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.49.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
