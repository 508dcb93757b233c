// Package goredisenv makes go-redis v9 clients for golock: Client(env, i)
// is a *redis.Client whose connections are the run's to node i, for a lock
// library that takes a go-redis client (redsync's goredis/v9 pool,
// bsm/redislock). It is a module of its own so that go-redis enters the
// graph of only the users who ask for it.
package goredisenv

import (
	"context"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

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

// Client is a go-redis client whose connections are the run's to node i.
// RESP2, no CLIENT SETINFO and no maintenance notifications: locksim's
// nodes speak RESP2, the identity commands would only add traffic, and the
// notifications' set-up resolves the address (a DNS look-up from inside
// the bubble, which the bubble forbids); the address is an IP literal for
// the same reason. Its buffers are 512 bytes, not 32 KiB: a lock's commands
// and replies are small (longer ones still pass, in pieces), and a run
// makes fresh clients for every process. Its pool holds 10 connections,
// not 10 per GOMAXPROCS, so that no run depends on the machine's cores. It
// has no pool of its own for pipelines (PipelinePoolSize -1, go-redis's
// single pool of before): a pipeline takes a connection of the main pool,
// with its small buffers, not one with 128 KiB ones, and a client that
// never pipelines (redsync, bsm/redislock) does not build a third pool for
// every process. A command go-redis retries is retried at once: its
// backoff between retries (8 to 512 ms) draws from the unseeded math/rand,
// and runs with it would not replay. Its timeouts and retries are
// go-redis's defaults (v9.23.0: 5 s to dial, 5 s to read and write, 3
// retries), which golock's call budget adds up. Every other option is
// go-redis's default; NewClient changes what a test needs changed.
func Client(env *golock.Env, i int) *redis.Client {
	return NewClient(env, i, nil)
}

// NewClient is Client with the caller's changes to the options: edit is
// called with Client's options before the client is made (its Dialer and
// Addr are the run's; a changed Addr must be another node's Env.Addr).
func NewClient(env *golock.Env, i int, edit func(*redis.Options)) *redis.Client {
	o := &redis.Options{
		Addr:                     env.Addr(i),
		DialTimeout:              dialTimeout,
		ReadTimeout:              readTimeout,
		MaxRetries:               maxRetries,
		Protocol:                 2,
		DisableIdentity:          true,
		PoolSize:                 10,
		PipelinePoolSize:         -1,
		MinRetryBackoff:          -1,
		ReadBufferSize:           512,
		WriteBufferSize:          512,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		Dialer:                   env.DialContext,
	}
	if edit != nil {
		edit(o)
	}
	c := redis.NewClient(o)
	c.AddHook(stackHook{})
	return c
}

// go-redis v9.23.0's defaults.
const (
	dialTimeout = golock.ClientDialTimeout
	readTimeout = golock.ClientReadTimeout // the write timeout follows it
	maxRetries  = golock.ClientMaxRetries
)

// stackHook grows the stack of the goroutine that runs a command, on its
// way in, while that goroutine holds a few frames: redsync runs every
// command on a goroutine of its own, which starts with a small stack, and
// go-redis's calls run deep; grown step by step, each growth copies and
// rewalks every frame of that depth (a tenth of a real run's time before).
type stackHook struct{}

// DialHook: a dial's goroutine stays shallow, and growing it costs more
// than it saves.
func (stackHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (stackHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		growStack(0)
		return next(ctx, cmd)
	}
}

func (stackHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// growStack needs stackPad bytes of stack below its caller at once.
//
//go:noinline
func growStack(i int) byte {
	var pad [stackPad]byte
	pad[i] = 1 // i is not known at compile time: pad stays
	return pad[i/2]
}

const stackPad = 16 << 10
