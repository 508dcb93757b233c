//go:build !linux

package realredis

import "syscall"

// dieWithParent: only Linux can tie a child's life to its parent's; the
// servers are stopped by Stop and by simrun's signal handler.
func dieWithParent(*syscall.SysProcAttr) {}
