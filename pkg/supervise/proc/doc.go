// Package proc runs training processes for pkg/supervise on Unix: each in
// a process group of its own (Setpgid), signalled as a group, reaped by the
// one owner of Wait4(-1) in the process, which dispatches exits by pid and
// reaps orphaned grandchildren too (tfsupervisor is PID 1, or a child
// subreaper on Linux). Nothing here calls exec.Cmd.Wait or os.Process.Wait:
// mixing those with a Wait4(-1) loop loses exit statuses ("waitid: no
// child processes").
//
// When a training process exits, what is left of its group is killed, so a
// restarted process does not meet its predecessor's children (holding its
// ports, for instance); on Linux so is every process that inherited its
// marker variable (TFGEN_SUPERVISED), such as one that moved to a session
// of its own with setsid.
package proc
