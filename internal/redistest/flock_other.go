//go:build !unix

package redistest

import (
	"os"
	"time"
)

// lockFile is a no-op where flock does not exist: test processes sharing a
// server are not kept apart there.
func lockFile(string, time.Duration, func(string, ...any)) (*os.File, error) { return nil, nil }

func unlockFile(*os.File) {}
