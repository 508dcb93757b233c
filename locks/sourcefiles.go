package locks

import (
	"embed"
	"io/fs"
)

// The algorithms' own files, compiled in so that readers can see each
// algorithm's steps next to its document's (simrun book) without the
// source tree. The list is explicit because a glob would take the tests
// too; TestEveryBuiltinHasSteps (internal/codesteps) fails when a new
// algorithm's file is missing from it.
//
//go:embed setnx_del.go setnx_del_recover.go setnx_getset.go setnx_getset_checked.go setnx_expire.go
//go:embed java_getset.go php_eval.go php_eval_acquire.lua php_eval_unlock.lua python_setnx.go php_set_get.go
//go:embed set_nx_px_token.go fenced_token.go redlock.go token_extend.go hash_reentrant_watchdog.go
//go:embed set_nx_px_wait.go
var sourceFiles embed.FS

// SourceFiles are the built-in algorithms' source files (Go, and the Lua
// scripts they embed) as this binary was built from, at the top of the FS.
func SourceFiles() fs.FS { return sourceFiles }
