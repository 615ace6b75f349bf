package peer

// TwoWay reports whether c is two-way: it has called its peer, or it is a
// Caller, or its Protocol has messages of its own (preempters).
func TwoWay(c *Conn) bool { return c.twoWay.Load() }
