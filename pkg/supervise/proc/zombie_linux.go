package proc

import (
	"bytes"
	"os"
	"strconv"
)

// zombie reports whether process pid has exited and awaits its reaping:
// a signal to it (or to its group, when it was alone there) is moot.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
