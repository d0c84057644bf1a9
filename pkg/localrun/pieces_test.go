package localrun

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chunks delivers its strings one per Read, as a process's writes come
// through a pipe.
type chunks []string

func (c *chunks) Read(p []byte) (int, error) {
	if len(*c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*c)[0])
	if (*c)[0] = (*c)[0][n:]; (*c)[0] == "" {
		*c = (*c)[1:]
	}
	return n, nil
}

// TestPieces: lines are whole, whatever the reads; a line that has had a
// \r (a progress bar) is passed on piece by piece as it comes.
func TestPieces(t *testing.T) {
	kinds := map[pieceKind]string{line: "line", carriage: "carriage", partial: "partial"}
	tests := []struct {
		name   string
		chunks chunks
		want   []string
	}{
		{"lines across reads", chunks{"one\ntw", "o\n\nthr", "ee"},
			[]string{`line "one\n"`, `line "two\n"`, `line "\n"`, `line "three"`}},
		{"\\r\\n is a line end, also across reads", chunks{"two\r", "\nthree\r\n"},
			[]string{`line "two\r\n"`, `line "three\r\n"`}},
		{"keras", chunks{"Epoch 1/2\n", "\r 1/3 [>..] - loss: 0.5", "\b\b\b\r 2/3 [=>.] - loss: 0.4", "\b\b\b\r 3/3 [==] - loss: 0.3\n", "Epoch 2/2\n"},
			[]string{`line "Epoch 1/2\n"`, `carriage "\r"`, `partial " 1/3 [>..] - loss: 0.5"`, `carriage "\b\b\b\r"`,
				`partial " 2/3 [=>.] - loss: 0.4"`, `carriage "\b\b\b\r"`, `line " 3/3 [==] - loss: 0.3\n"`, `line "Epoch 2/2\n"`}},
		{"tqdm, ending in \\r", chunks{" 10%|#  |\r", " 50%|## |\r", "100%|###|\r", "\n"},
			[]string{`carriage " 10%|#  |\r"`, `partial " 50%|## |"`, `carriage "\r"`, `partial "100%|###|"`, `line "\r\n"`}},
		{"a \\r last in the output", chunks{"done\r"}, []string{`carriage "done\r"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			newPieces(&tt.chunks).each(func(text []byte, kind pieceKind) {
				got = append(got, fmt.Sprintf("%s %q", kinds[kind], text))
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPiecesLong: a line longer than the buffer is cut into several.
func TestPiecesLong(t *testing.T) {
	long := strings.Repeat("x", maxPiece+10)
	in := chunks{long + "\n"}
	var got []int
	newPieces(&in).each(func(text []byte, kind pieceKind) {
		if kind != line {
			t.Errorf("kind %d", kind)
		}
		got = append(got, len(text))
	})
	if diff := cmp.Diff([]int{maxPiece, 11}, got); diff != "" {
		t.Errorf("piece lengths (-want +got):\n%s", diff)
	}
}
