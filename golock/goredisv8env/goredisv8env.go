// Package goredisv8env makes go-redis v8 clients for golock: Client(env,
// i) is a *redis.Client of github.com/go-redis/redis/v8 whose connections
// are the run's to node i, for a lock library that still takes a v8 client
// (redsync's goredis/v8 pool). It is a module of its own so that go-redis
// v8 enters the graph of only the users who ask for it.
package goredisv8env

import (
	"github.com/go-redis/redis/v8"

	"github.com/locksim/locksim/golock"
)

// Clients is one client per node of the run (Clients(env)[i] talks to node
// i).
func Clients(env *golock.Env) []*redis.Client {
	cs := make([]*redis.Client, env.Nodes)
	for i := range cs {
		cs[i] = Client(env, i)
	}
	return cs
}

// Client is a go-redis v8 client whose connections are the run's to node
// i. v8 speaks RESP2 and sends nothing on a connection before the first
// command, as locksim's nodes need. Its pool holds 10 connections, not 10
// per GOMAXPROCS, so that no run depends on the machine's cores; it has no
// idle reaper (IdleCheckFrequency -1), a goroutine that only the client's
// Close ends and that would outlive every run (idle connections are still
// dropped when taken, after v8's 5 minutes); and a command go-redis
// retries is retried at once, since its backoff draws from the unseeded
// math/rand and runs with it would not replay. Every other option is
// v8.11.5's default (5 s to dial, 3 s to read and write, 3 retries).
func Client(env *golock.Env, i int) *redis.Client { return NewClient(env, i, nil) }

// NewClient is Client with the caller's changes to the options: edit is
// called with Client's options before the client is made.
func NewClient(env *golock.Env, i int, edit func(*redis.Options)) *redis.Client {
	o := &redis.Options{
		Addr:               env.Addr(i),
		Dialer:             env.DialContext,
		PoolSize:           10,
		IdleCheckFrequency: -1,
		MinRetryBackoff:    -1,
	}
	if edit != nil {
		edit(o)
	}
	return redis.NewClient(o)
}
