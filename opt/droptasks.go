package opt

import "github.com/qdgo/qd/ir"

// DropEmptyTasks removes the tasks that write no memory and surely end,
// which need not be launched at all (ir.Task.Needed), and numbers the rest
// in order.
func DropEmptyTasks(k *ir.Kernel) {
	var kept []*ir.Task
	for _, t := range k.Tasks {
		if t.Needed() {
			kept = append(kept, t)
		}
	}
	for i, t := range kept {
		t.Name = k.TaskName(i)
	}
	k.Tasks = kept
}
