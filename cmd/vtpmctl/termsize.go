//go:build linux || darwin

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalColumns is f's width in columns, 0 when f is no terminal.
func terminalColumns(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
