package harness

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tfgen/tfgen/pkg/cli"
)

// Tfgen runs tfgen's own root command with args in this process (as fast
// as rendering gets), stdin its standard input: what it printed, and
// whether it succeeded.
func Tfgen(stdin []byte, args ...string) (stdout, stderr string, ok bool) {
	var out, errOut bytes.Buffer
	cmd := cli.NewRootCmd(cli.Streams{In: bytes.NewReader(stdin), Out: &out, ErrOut: &errOut})
	cmd.SetArgs(args)
	ok = cli.Report(&errOut, cmd.Execute()) == 0
	return out.String(), errOut.String(), ok
}

// Render runs tfgen render on a stream of documents with flags, in this
// process: the objects and stderr, and whether tfgen rendered them (when
// it refuses, stderr says why).
func Render(stream []byte, flags ...string) (objs []Object, stderr string, ok bool, err error) {
	out, stderr, ok := Tfgen(stream, append([]string{"render", "-f", "-", "--format", "json"}, flags...)...)
	if !ok {
		return nil, stderr, false, nil
	}
	var list struct{ Items []Object }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return nil, stderr, true, fmt.Errorf("tfgen's output is no List: %w\n%s", err, out)
	}
	return list.Items, stderr, true, nil
}
