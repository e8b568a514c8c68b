package redisbp

// sessionKeys names the keys of one session. They all start with base,
// "<prefix>:{<sid>}:", whose hash tag puts them on one Cluster slot; the
// Lua scripts build the keys of streams from base and the stream names
// in the set, as stream and meta do.
type sessionKeys struct {
	base string
}

func (b *Backplane) keys(sid string) sessionKeys {
	return sessionKeys{base: b.prefix + ":{" + sid + "}:"}
}

func (k sessionKeys) session() string { return k.base + "session" }
func (k sessionKeys) streams() string { return k.base + "streams" }

// stream is the list of a stream's buffered events.
func (k sessionKeys) stream(name string) string { return k.base + "stream:" + name }

// meta is the hash of a stream's size and lost counters.
func (k sessionKeys) meta(name string) string { return k.base + "meta:" + name }

func (b *Backplane) claimKey(key string) string { return b.prefix + ":claim:" + key }
