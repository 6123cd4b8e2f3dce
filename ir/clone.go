package ir

import "slices"

// Clone returns a deep copy of k, which a backend's passes may
// change without touching k or another backend's copy. The file set of
// its positions (Source), which nothing changes, is shared.
func (k *Kernel) Clone() *Kernel {
	c := *k
	c.Params = slices.Clone(k.Params)
	c.Conflicts = slices.Clone(k.Conflicts)
	c.Groups = slices.Clone(k.Groups)
	c.Sites = slices.Clone(k.Sites)
	c.Data = slices.Clone(k.Data)
	for i := range c.Data {
		c.Data[i].Bytes = slices.Clone(c.Data[i].Bytes)
	}
	c.Prints = slices.Clone(k.Prints)
	for i := range c.Prints {
		c.Prints[i].Types = slices.Clone(c.Prints[i].Types)
	}
	c.Tasks = slices.Clone(k.Tasks)
	for i, t := range c.Tasks {
		c.Tasks[i] = t.clone()
	}
	c.Funcs = slices.Clone(k.Funcs)
	for i, f := range c.Funcs {
		c.Funcs[i] = f.clone()
	}
	return &c
}

func (t *Task) clone() *Task {
	c := *t
	c.Count = cloneExpr(t.Count)
	c.Regs = slices.Clone(t.Regs)
	c.Params = slices.Clone(t.Params)
	c.Results = slices.Clone(t.Results)
	c.Vars = slices.Clone(t.Vars)
	c.Blocks = slices.Clone(t.Blocks)
	for i, b := range c.Blocks {
		cb := *b
		cb.Instrs = slices.Clone(b.Instrs)
		for j := range cb.Instrs {
			cb.Instrs[j].Args = slices.Clone(cb.Instrs[j].Args)
			cb.Instrs[j].Results = slices.Clone(cb.Instrs[j].Results)
		}
		c.Blocks[i] = &cb
	}
	return &c
}

func cloneExpr(e *Expr) *Expr {
	if e == nil {
		return nil
	}
	c := *e
	c.Args = slices.Clone(e.Args)
	for i, a := range c.Args {
		c.Args[i] = cloneExpr(a)
	}
	return &c
}
