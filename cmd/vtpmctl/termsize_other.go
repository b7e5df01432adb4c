//go:build !linux && !darwin

package main

import "os"

// terminalColumns: elsewhere no width is known; $COLUMNS or 80 say it.
func terminalColumns(*os.File) int { return 0 }
