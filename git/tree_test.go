package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestResolveCommit(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "one\n")
	first := r.commit("first")
	r.write("a.txt", "two\n")
	second := r.commit("second")
	r.git("tag", "v1", first)
	ctx := context.Background()
	for rev, want := range map[string]string{"HEAD": second, "main": second, "HEAD~1": first, "v1": first, first[:10]: first} {
		got, err := ResolveCommit(ctx, r.dir, rev)
		if err != nil || got != want {
			t.Errorf("ResolveCommit(%q) = %q, %v; want %q", rev, got, err, want)
		}
	}
	// Nothing a rev says reaches git as an option or a second line.
	for _, rev := range []string{"", "--output=/tmp/x", "-h", "HEAD\nmain", "HEAD\x00", "nosuchbranch", strings.Repeat("a", 2000), "HEAD:a.txt"} {
		got, err := ResolveCommit(ctx, r.dir, rev)
		if vouch.Code(err) != vouch.ErrInvalid {
			t.Errorf("ResolveCommit(%q) = %q, %v; want an invalid-input error", rev, got, err)
		}
	}
}

func TestMergeBase(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "one\n")
	fork := r.commit("first")
	r.git("checkout", "-q", "-b", "feature")
	r.write("b.txt", "feature\n")
	feature := r.commit("feature work")
	r.git("checkout", "-q", "main")
	r.write("c.txt", "main moves on\n")
	main := r.commit("main work")
	got, err := MergeBase(context.Background(), r.dir, main, feature)
	if err != nil || got != fork {
		t.Fatalf("MergeBase = %q, %v; want the fork point %q", got, err, fork)
	}
	if _, err := MergeBase(context.Background(), r.dir, "main", feature); err == nil {
		t.Error("MergeBase took a name rather than a hash")
	}
	// Unrelated histories have no merge base.
	r.git("checkout", "-q", "--orphan", "other")
	r.git("rm", "-rq", "--cached", ".")
	other := r.commit("unrelated")
	if _, err := MergeBase(context.Background(), r.dir, other, main); err == nil || !strings.Contains(err.Error(), "no common ancestor") {
		t.Errorf("MergeBase of unrelated commits: %v", err)
	}
}

func TestCheckout(t *testing.T) {
	r := newRepo(t)
	r.write("keep.go", "package a\n")
	r.write("gone.txt", "removed later\n")
	base := r.commit("base")
	r.write("keep.go", "package a\n\nfunc F() {}\n")
	r.write("dir/new.txt", "new\n")
	r.remove("gone.txt")
	head := r.commit("head")
	// The working tree moves on after head: the checkout must not see it.
	r.write("keep.go", "package a // uncommitted\n")
	r.write("untracked.txt", "x\n")
	before := listTree(t, filepath.Join(r.dir, ".git"))

	ctx := context.Background()
	tree, err := Checkout(ctx, r.dir, head)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if tree.Commit != head {
		t.Errorf("Commit = %q, want %q", tree.Commit, head)
	}
	if b, err := os.ReadFile(filepath.Join(tree.Dir, "keep.go")); err != nil || string(b) != "package a\n\nfunc F() {}\n" {
		t.Errorf("keep.go at head = %q, %v", b, err)
	}
	for _, p := range []string{"gone.txt", "untracked.txt"} {
		if _, err := os.Stat(filepath.Join(tree.Dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s is in the checkout: %v", p, err)
		}
	}
	ch, err := Read(ctx, tree.Dir, base)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ch.Paths(), []string{"dir/new.txt", "gone.txt", "keep.go"}; !slices.Equal(got, want) {
		t.Errorf("changes in the checkout = %v, want %v", got, want)
	}
	if fc := ch.File("keep.go"); fc == nil || !fc.Committed || fc.Uncommitted || !fc.Touches(3, 3) {
		t.Errorf("keep.go change = %+v", fc)
	}
	if after := listTree(t, filepath.Join(r.dir, ".git")); !slices.Equal(before, after) {
		t.Errorf("the source repository's .git changed:\nbefore %v\nafter  %v", before, after)
	}
	dir := tree.Dir
	if err := tree.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the checkout was not removed: %v", err)
	}
	if err := tree.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}

	if _, err := Checkout(ctx, r.dir, "HEAD"); err == nil {
		t.Error("Checkout took a name rather than a hash")
	}
	if _, err := Checkout(ctx, r.dir, strings.Repeat("0", 40)); err == nil {
		t.Error("Checkout of a missing commit succeeded")
	}
}

// TestCheckoutRunsNoRepositoryProgram checks that a filter driver and a
// post-checkout hook the source repository names do not run: the
// checkout is made under vouch's own configuration.
func TestCheckoutRunsNoRepositoryProgram(t *testing.T) {
	prog, marker := markerProg(t)
	r := newRepo(t)
	r.write(".gitattributes", "* filter=evil\n")
	r.write("a.txt", "a\n")
	head := r.commit("base")
	r.git("config", "filter.evil.smudge", prog)
	r.git("config", "filter.evil.required", "true")
	r.git("config", "core.hooksPath", filepath.Dir(prog))
	hooks := filepath.Join(r.dir, ".git", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	script, _ := os.ReadFile(prog)
	for _, h := range []string{"post-checkout", "reference-transaction"} {
		if err := os.WriteFile(filepath.Join(hooks, h), script, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := Checkout(context.Background(), r.dir, head)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if b, err := os.ReadFile(filepath.Join(tree.Dir, "a.txt")); err != nil || string(b) != "a\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a program of the repository ran: %s", b)
	}
	// The control: plain git, checking the file out in the repository
	// itself, runs the filter.
	// (The script prints nothing, so the required filter fails the
	// checkout, after it ran.)
	r.remove("a.txt")
	cmd := exec.Command("git", "checkout", "--", "a.txt")
	cmd.Dir = r.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the control did not run the filter either, so the test proves nothing: %v", err)
	}
}

func TestPatchAndReadAt(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n\nfunc Old() {}\n")
	r.write("big.txt", lines("x", 10))
	base := r.commit("base")
	r.write("a.go", "package a\n\nfunc New() {}\n")
	r.write("b.txt", "b\n")
	r.commit("head")
	ctx := context.Background()
	p, cut, err := Patch(ctx, r.dir, base, 1<<20)
	if err != nil || cut {
		t.Fatalf("Patch: cut %v, %v", cut, err)
	}
	for _, want := range []string{"-func Old() {}", "+func New() {}", "b/b.txt"} {
		if !strings.Contains(p, want) {
			t.Errorf("patch lacks %q:\n%s", want, p)
		}
	}
	short, cut, err := Patch(ctx, r.dir, base, 40)
	if err != nil || !cut || len(short) > 40 || !strings.HasPrefix(p, short) {
		t.Errorf("Patch cut at 40: %q, cut %v, %v", short, cut, err)
	}
	if _, _, err := Patch(ctx, r.dir, "--output=x", 100); vouch.Code(err) != vouch.ErrInvalid {
		t.Errorf("Patch with an option as base: %v", err)
	}

	files, skipped, err := ReadAt(ctx, r.dir, base, []string{"a.go", "b.txt", "nested\nname", "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if string(files["a.go"]) != "package a\n\nfunc Old() {}\n" {
		t.Errorf("a.go at base = %q", files["a.go"])
	}
	if b, ok := files["b.txt"]; !ok || b != nil {
		t.Errorf("b.txt at base = %q, %v; want nil: it did not exist", b, ok)
	}
	if string(files["big.txt"]) != lines("x", 10) {
		t.Errorf("big.txt at base = %q", files["big.txt"])
	}
	if skipped["nested\nname"] == nil {
		t.Errorf("a path with a newline was not skipped: %v", skipped)
	}
}

// listTree lists the files under dir with their sizes.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out = append(out, rel+"/")
		} else {
			out = append(out, rel+" "+info.ModTime().String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckoutFromLinkedWorktree checks a checkout made from a linked
// worktree, whose objects are in the main repository.
func TestCheckoutFromLinkedWorktree(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commit("base")
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", "-b", "side", wt)
	side := &repo{t: t, dir: wt}
	side.write("b.txt", "b\n")
	head := side.commit("side")
	tree, err := Checkout(context.Background(), wt, head)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if b, err := os.ReadFile(filepath.Join(tree.Dir, "b.txt")); err != nil || string(b) != "b\n" {
		t.Errorf("b.txt = %q, %v", b, err)
	}
}
