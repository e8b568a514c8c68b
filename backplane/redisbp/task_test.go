package redisbp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// TestTaskIndexRepair: an index entry whose record is missing (its
// writer failed between the two writes) is skipped and removed by the
// next list, and an unlisted task leaves no index key at all.
func TestTaskIndexRepair(t *testing.T) {
	ctx := context.Background()
	b := newNode(t, redistest.Start(t).URL)
	exp := time.Now().Add(time.Minute)
	if _, err := b.PutTask(ctx, &backplane.Task{ID: "t1", Owner: "o", Expires: exp, Data: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	// A writer that stopped after the index.
	if err := b.client.ZAdd(ctx, b.taskIndex("o"), redisZ(exp, "t2")).Err(); err != nil {
		t.Fatal(err)
	}
	list, err := b.ListTasks(ctx, "o")
	if err != nil || len(list) != 1 || list[0].ID != "t1" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if ids, _ := b.client.ZRange(ctx, b.taskIndex("o"), 0, -1).Result(); len(ids) != 1 || ids[0] != "t1" {
		t.Errorf("index after the list: %v, want the orphan removed", ids)
	}

	if _, err := b.PutTask(ctx, &backplane.Task{ID: "t3", Owner: "p:", Unlisted: true, Expires: exp, Data: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.client.Exists(ctx, b.taskIndex("p:")).Result(); n != 0 {
		t.Error("an unlisted task was indexed")
	}
}

func redisZ(exp time.Time, id string) redis.Z {
	return redis.Z{Score: float64(exp.UnixMilli()), Member: id}
}
