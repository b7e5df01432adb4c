//go:build !linux && !darwin

package output

import "os"

// terminalWidth: elsewhere no width is known; COLUMNS or MaxWidth say it.
func terminalWidth(*os.File) int { return 0 }
