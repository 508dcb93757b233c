// Package userfile reads the files a user names (scenarios, algorithm files,
// their scripts) so that no input can hang or flood the program: only
// regular files are opened (a FIFO would block the open until a writer came,
// /dev/zero would never end), their size is checked before they are read,
// and a file named from inside another stays inside that file's folder.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Read returns the contents of the regular file at path, refusing one over
// max bytes. Errors are one line and carry no path (the caller names it):
// "no such file or directory", "not a regular file (a named pipe)".
func Read(path string, max int) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, bare(err)
	}
	if err := check(st, max); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, bare(err)
	}
	defer f.Close()
	return readMax(f, max)
}

// ReadIn reads rel, a path relative to the folder dir, refusing an absolute
// path and one that leaves dir, whether by ".." or through a symbolic link
// (os.Root checks every step).
func ReadIn(dir, rel string, max int) ([]byte, error) {
	if err := Local(rel); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, bare(err)
	}
	defer root.Close()
	st, err := root.Stat(rel)
	if err != nil {
		return nil, inRoot(err)
	}
	if err := check(st, max); err != nil {
		return nil, err
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, inRoot(err)
	}
	defer f.Close()
	return readMax(f, max)
}

// Local refuses a path that is absolute or leaves its folder by "..".
func Local(rel string) error {
	switch {
	case filepath.IsAbs(rel) || filepath.VolumeName(rel) != "":
		return errors.New("an absolute path: give a path inside the algorithm file's folder")
	case !filepath.IsLocal(rel):
		return errors.New("leaves the algorithm file's folder: give a path inside it")
	}
	return nil
}

func check(st fs.FileInfo, max int) error {
	m := st.Mode()
	switch {
	case m.IsDir():
		return errors.New("a folder, not a file")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("not a regular file (a named pipe)")
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return errors.New("not a regular file (a device)")
	case !m.IsRegular():
		return errors.New("not a regular file")
	case st.Size() > int64(max):
		return fmt.Errorf("%d bytes, more than the %d allowed", st.Size(), max)
	}
	return nil
}

// readMax reads at most max bytes: a file may grow after it was checked.
func readMax(f io.Reader, max int) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, bare(err)
	}
	if len(data) > max {
		return nil, fmt.Errorf("more than the %d bytes allowed", max)
	}
	return data, nil
}

// bare drops the operation and path os errors carry.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// inRoot words os.Root's refusal of a symbolic link out of the folder.
func inRoot(err error) error {
	err = bare(err)
	if err.Error() == "path escapes from parent" {
		return errors.New("leaves the algorithm file's folder (a symbolic link): give a path inside it")
	}
	return err
}
