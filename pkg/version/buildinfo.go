package version

import "runtime/debug"

// init fills in what the linker did not set from the module's build info,
// so `go install github.com/tfgen/tfgen/cmd/tfgen@v1.2.3` reports v1.2.3 and
// renders the supervisor image of the same version.
func init() {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if Version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		Version = info.Main.Version
	}
	if Commit == "unknown" {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				Commit = s.Value[:7]
			}
		}
	}
}
