//go:build !linux

package server

import "errors"

func setMark(fd uintptr, id int) error {
	return errors.New("socket marks (SO_MARK) exist on Linux only")
}
