//go:build linux

package server

import "syscall"

func setMark(fd uintptr, id int) error {
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_MARK, id)
}
