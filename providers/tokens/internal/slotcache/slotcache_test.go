package slotcache

import (
	"fmt"
	"sync"
	"testing"
)

func TestCache(t *testing.T) {
	t.Parallel()
	c := New[int](1 << 4)
	if _, _, ok := c.Get("a"); ok {
		t.Fatal("empty cache holds a")
	}
	_, h, _ := c.Get("a")
	c.Put(h, "a", 1)
	if v, _, ok := c.Get("a"); !ok || v != 1 {
		t.Errorf("Get(a) = %d, %v", v, ok)
	}
	if v, _, ok := c.GetBytes([]byte("a")); !ok || v != 1 {
		t.Errorf("GetBytes(a) = %d, %v", v, ok)
	}
	// Past its size the cache forgets, and never answers wrong.
	for i := range 1000 {
		k := fmt.Sprint(i)
		_, h, _ := c.Get(k)
		c.Put(h, k, i)
	}
	for i := range 1000 {
		if v, _, ok := c.Get(fmt.Sprint(i)); ok && v != i {
			t.Fatalf("Get(%d) = %d", i, v)
		}
	}
}

func TestCacheConcurrent(t *testing.T) {
	t.Parallel()
	c := New[string](1 << 6)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := fmt.Sprint((i + w*7) % 300)
				if v, h, ok := c.Get(k); !ok {
					c.Put(h, k, "v"+k)
				} else if v != "v"+k {
					t.Errorf("Get(%s) = %s", k, v)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestNewPanicsOnABadSize(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("New(3) did not panic")
		}
	}()
	New[int](3)
}

func TestSmall(t *testing.T) {
	t.Parallel()
	c := NewSmall(1 << 4)
	for _, k := range []string{"", "a", "abcdefgh", "abcdefghijklmnop", "abcdefghijklmnopq"} {
		if _, ok := c.Get([]byte(k)); ok {
			t.Errorf("empty cache holds %q", k)
		}
		c.Put([]byte(k), len(k))
		n, ok := c.Get([]byte(k))
		if want := len(k) > 0 && len(k) <= SmallKey; ok != want || ok && n != len(k) {
			t.Errorf("Get(%q) = %d, %v", k, n, ok)
		}
	}
	// Keys of one length that share their first and last eight bytes
	// are the same key; others never answer for each other.
	for i := range 2000 {
		k := []byte(fmt.Sprintf("k%dx%d", i, i%7))
		c.Put(k, i%200)
	}
	for i := range 2000 {
		k := []byte(fmt.Sprintf("k%dx%d", i, i%7))
		if n, ok := c.Get(k); ok && n != i%200 {
			t.Fatalf("Get(%s) = %d, want %d", k, n, i%200)
		}
	}
	c.Put([]byte("big"), 256)
	if _, ok := c.Get([]byte("big")); ok {
		t.Error("Small holds a value over 255")
	}
}

func TestSmallConcurrent(t *testing.T) {
	t.Parallel()
	c := NewSmall(1 << 5)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5000 {
				v := (i + w*13) % 200
				k := []byte(fmt.Sprintf("key-%d", v))
				if n, ok := c.Get(k); !ok {
					c.Put(k, v)
				} else if n != v {
					t.Errorf("Get(%s) = %d", k, n)
					return
				}
			}
		}()
	}
	wg.Wait()
}
