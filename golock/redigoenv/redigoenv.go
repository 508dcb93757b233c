// Package redigoenv makes redigo connections and pools for golock:
// Pool(env, i) is a *redis.Pool whose connections are the run's to node i,
// for a lock library that takes a redigo pool (redsync's redigo pool). It
// is a module of its own so that redigo enters the graph of only the users
// who ask for it.
package redigoenv

import (
	"github.com/gomodule/redigo/redis"

	"github.com/locksim/locksim/golock"
)

// Dial is a redigo connection to node i, dialed through Env (DialNetDial):
// opts are redigo's own dial options (timeouts, a database), after it.
// Without a DialReadTimeout a read waits for its reply as long as the
// connection lives, as redigo's default does against a real server.
func Dial(env *golock.Env, i int, opts ...redis.DialOption) (redis.Conn, error) {
	return redis.Dial("tcp", env.Addr(i), append([]redis.DialOption{redis.DialNetDial(env.NetDial)}, opts...)...)
}

// Pools is one pool per node of the run (Pools(env)[i] dials node i).
func Pools(env *golock.Env, opts ...redis.DialOption) []*redis.Pool {
	ps := make([]*redis.Pool, env.Nodes)
	for i := range ps {
		ps[i] = Pool(env, i, opts...)
	}
	return ps
}

// Pool is a redigo pool of connections to node i (Dial with opts). It
// keeps up to 10 idle connections, as go-redis's pool of golock/goredisenv
// holds 10, and never closes one for idleness: redigo's default of none
// kept would dial for every command. Every other field is redigo's
// default.
func Pool(env *golock.Env, i int, opts ...redis.DialOption) *redis.Pool {
	return &redis.Pool{
		MaxIdle: 10,
		Dial:    func() (redis.Conn, error) { return Dial(env, i, opts...) },
	}
}
