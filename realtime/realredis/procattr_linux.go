package realredis

import "syscall"

// dieWithParent has the kernel kill a server if locksim dies without
// stopping it (SIGKILL, a crash): no redis-server outlives its run.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
