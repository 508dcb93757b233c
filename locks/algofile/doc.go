// Package algofile reads algorithm files: locks defined without Go. An
// algorithm file gives acquire, release and an optional extend and cleanup,
// each one Redis command or Lua script, or a short list of steps with rules
// on their replies, on one node or a quorum of several; the token's shape,
// the retry policy, the client's own resends, the validity check and how
// renewal fails (told to the holder, or silent) are fields of their own.
//
// parse.go decodes a file, validate.go checks every field (each error one
// line naming the file and the field), run.go runs a loaded file, template.go
// fills its arguments and token.go makes its tokens. The result is a
// locks.Algorithm, run like a built-in. examples/ has four files that
// reproduce built-ins command for command and four that write real
// libraries' locks; examples/README.md describes the format.
package algofile
