package redisbp

// sessionKeys names the keys of one session. They all start with base,
// "<prefix>:{<sid>}:", whose hash tag puts them on one Cluster slot. A
// session has these four keys and no others, whatever its streams, so
// that every script names each key it touches in KEYS, as a Cluster
// requires (a key a script builds itself may have moved to another node
// while its slot migrates).
type sessionKeys struct {
	base string
}

func (b *Backplane) keys(sid string) sessionKeys {
	return sessionKeys{base: b.prefix + ":{" + sid + "}:"}
}

func (k sessionKeys) session() string  { return k.base + "session" }
func (k sessionKeys) requests() string { return k.base + "requests" }

// events is the sorted set of every stream's buffered events.
func (k sessionKeys) events() string { return k.base + "events" }

// meta is the hash of every stream's counters.
func (k sessionKeys) meta() string { return k.base + "meta" }

// all is the session's keys in the order the session scripts take them.
func (k sessionKeys) all() []string {
	return []string{k.session(), k.requests(), k.events(), k.meta()}
}

func (b *Backplane) claimKey(key string) string { return b.prefix + ":claim:" + key }
