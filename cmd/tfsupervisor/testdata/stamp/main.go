// Command stamp is a training process for benchmarks: it appends
// "START END\n" to $STAMP_FILE, the Unix times in nanoseconds when its main
// began and when it is about to exit, then exits with $STAMP_EXIT (0).
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	start := time.Now().UnixNano()
	code, _ := strconv.Atoi(os.Getenv("STAMP_EXIT"))
	f, err := os.OpenFile(os.Getenv("STAMP_FILE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintf(f, "%d %d\n", start, time.Now().UnixNano())
	f.Close()
	os.Exit(code)
}
