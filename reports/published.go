package reports

import _ "embed"

// PublishedMatrix is the verdict matrix as published, reports/matrix.md:
// what `simrun matrix` prints with its defaults. go test ./matrix checks it
// is this tree's; simrun book rebuilds its pages from it (matrix.Rebuild)
// instead of searching every cell again.
//
//go:embed matrix.md
var PublishedMatrix []byte
