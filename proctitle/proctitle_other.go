//go:build !linux

package proctitle

import "errors"

// Set does nothing here: only Linux is supported.
func Set(title string) error { return errors.ErrUnsupported }

// Size is the longest title Set can write: 0 here.
func Size() int { return 0 }
