package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
)

// keysFlags are the flags shared by the vouch keys commands.
type keysFlags struct {
	store  string
	tenant string
	name   string
	scopes []string
	json   bool
}

func newKeysCmd(st Streams) *cobra.Command {
	var f keysFlags
	cmd := &cobra.Command{
		Use:   "keys create|list|revoke --store DSN",
		Short: "Manage the API keys of a server's store (works on the store directly)",
		Long: `Manage the API keys of 'vouch serve'. The commands work on the store itself
(--store, else VOUCH_STORE, else ./vouch.db), so the first key needs no server.
A key is shown once, when it is made; the store keeps only its hash. Scopes:
verify (POST requests and batches), read (reports, lists, events), review
(overrides and outcomes), admin (every scope of its tenant), operator (the
Prometheus /metrics, which names every tenant: no tenant's admin key reads it;
give it to the operator's scraper alone). A running server notices a new or
revoked key within a few seconds.

A server on a store with no key runs in open mode: it takes requests without
a key as tenant "default". The first key ends open mode, and the verifications
made in it stay with tenant "default": only a key of that tenant reads them
('keys create --tenant default'). keys create says so when it makes the first
key of a store that holds such verifications.`,
	}
	fl := cmd.PersistentFlags()
	fl.StringVar(&f.store, "store", "", "the store's `DSN` (default: VOUCH_STORE, else ./vouch.db)")
	create := &cobra.Command{
		Use:   "create --tenant NAME [--scope verify,read] [--name TEXT]",
		Short: "Make a key for a tenant and print it (once)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.tenant == "" {
				return usageErr(fmt.Errorf("keys create needs --tenant NAME, the tenant whose verifications the key reaches; "+
					"those a server made without a key (open mode) belong to tenant %q: --tenant %s keeps them readable", server.DefaultTenant, server.DefaultTenant))
			}
			if !store.ValidTenant(f.tenant) {
				return usageErr(fmt.Errorf("--tenant %q: want lower-case letters, digits, - and _ (at most 63, starting with a letter or digit)", f.tenant))
			}
			var scopes []string
			for _, s := range f.scopes {
				for _, p := range strings.Split(s, ",") {
					if p = strings.TrimSpace(p); p != "" {
						scopes = append(scopes, p)
					}
				}
			}
			secret, k, err := store.NewKey(f.tenant, f.name, scopes, time.Now())
			if err != nil {
				return usageErr(err)
			}
			return withStore(cmd.Context(), st, f.store, func(s store.Store) error {
				openData, err := openModeData(cmd.Context(), s)
				if err != nil {
					return err
				}
				if err := s.CreateKey(cmd.Context(), k); err != nil {
					return err
				}
				if openData {
					defer firstKeyNote(st.Err, k.Tenant, f.store)
				}
				if f.json {
					return json.MarshalWrite(st.Out, map[string]any{"id": k.ID, "tenant": k.Tenant, "name": k.Name, "scopes": k.Scopes, "key": secret}, jsontext.WithIndent("  "))
				}
				fmt.Fprintln(st.Out, secret)
				fmt.Fprintf(st.Err, "key %s for tenant %s (%s): shown once, keep it secret\n", k.ID, k.Tenant, strings.Join(k.Scopes, ","))
				return nil
			})
		},
	}
	create.Flags().StringVar(&f.tenant, "tenant", "", "the key's `TENANT`")
	create.Flags().StringVar(&f.name, "name", "", "a `NAME` to tell the key by")
	create.Flags().StringSliceVar(&f.scopes, "scope", []string{store.ScopeVerify, store.ScopeRead}, "the key's `SCOPES`: verify, read, review, admin, operator")
	create.Flags().BoolVar(&f.json, "json", false, "print the key as JSON")
	list := &cobra.Command{
		Use:   "list [--tenant NAME] [--json]",
		Short: "List the keys (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), st, f.store, func(s store.Store) error {
				keys, err := s.Keys(cmd.Context(), f.tenant)
				if err != nil {
					return err
				}
				if f.json {
					type row struct {
						ID        string     `json:"id"`
						Tenant    string     `json:"tenant"`
						Name      string     `json:"name"`
						Scopes    []string   `json:"scopes"`
						CreatedAt time.Time  `json:"createdAt"`
						RevokedAt *time.Time `json:"revokedAt,omitempty"`
					}
					rows := make([]row, len(keys))
					for i, k := range keys {
						rows[i] = row{ID: k.ID, Tenant: k.Tenant, Name: k.Name, Scopes: k.Scopes, CreatedAt: k.CreatedAt}
						if !k.RevokedAt.IsZero() {
							t := k.RevokedAt
							rows[i].RevokedAt = &t
						}
					}
					return json.MarshalWrite(st.Out, rows, jsontext.WithIndent("  "))
				}
				tw := tabwriter.NewWriter(st.Out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tTENANT\tNAME\tSCOPES\tCREATED\tREVOKED")
				for _, k := range keys {
					revoked := "-"
					if !k.RevokedAt.IsZero() {
						revoked = k.RevokedAt.UTC().Format(time.RFC3339)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Tenant, k.Name, strings.Join(k.Scopes, ","), k.CreatedAt.UTC().Format(time.RFC3339), revoked)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&f.tenant, "tenant", "", "only the keys of `TENANT`")
	list.Flags().BoolVar(&f.json, "json", false, "print JSON")
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd.Context(), st, f.store, func(s store.Store) error {
				if err := s.RevokeKey(cmd.Context(), args[0], time.Now()); err != nil {
					if errors.Is(err, store.ErrNotFound) {
						return usageErr(fmt.Errorf("no key %q", args[0]))
					}
					return err
				}
				fmt.Fprintf(st.Err, "key %s revoked\n", args[0])
				if n, err := s.ActiveKeys(cmd.Context()); err == nil && n == 0 {
					fmt.Fprintln(st.Err, "that was the last live key: a running server on this store stays closed and refuses every request until a key is created; a server started on it now would run in open mode (loopback only, every request without a key)")
				}
				return nil
			})
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

// keysAndLog is what [openModeData] reads of a store: its keys and its
// verification log.
type keysAndLog interface {
	store.Keyring
	store.Log
}

// openModeData reports whether s has no live key (a server on it runs in
// open mode) and holds verifications of the tenant of open mode,
// "default": the data the first key hides from every other tenant.
func openModeData(ctx context.Context, s keysAndLog) (bool, error) {
	n, err := s.ActiveKeys(ctx)
	if err != nil || n > 0 {
		return false, err
	}
	page, err := s.List(ctx, server.DefaultTenant, store.Filter{Limit: 1})
	if err != nil {
		return false, err
	}
	return len(page.Items) > 0, nil
}

// firstKeyNote tells whoever made the first key of a store that holds
// open mode's verifications what becomes of them, and how to reach them.
func firstKeyNote(w io.Writer, tenant, dsn string) {
	fmt.Fprintln(w, "note: this is the store's first key: a server on it leaves open mode and takes only requests with a key.")
	if tenant == server.DefaultTenant {
		fmt.Fprintf(w, "  The verifications made without a key belong to tenant %q, this key's: it reads them.\n", server.DefaultTenant)
		return
	}
	flag := ""
	switch {
	case store.IsPostgres(dsn):
		flag = " --store DSN"
	case dsn != "":
		flag = " --store " + dsn
	}
	fmt.Fprintf(w, "  The verifications made without a key (open mode) belong to tenant %q; this key, of tenant %q,\n"+
		"  does not reach them, nor does the dashboard signed in with it. To keep reading them, make a key for\n"+
		"  tenant %q too: vouch keys create%s --tenant %s --scope read,review\n", server.DefaultTenant, tenant, server.DefaultTenant, flag, server.DefaultTenant)
}

// withStore opens the store named by dsn (else VOUCH_STORE, else
// ./vouch.db), runs fn and closes it.
func withStore(ctx context.Context, st Streams, dsn string, fn func(store.Store) error) error {
	if dsn == "" {
		dsn = st.getenv("VOUCH_STORE")
	}
	if dsn == "" {
		dsn = server.DefaultConfig().Store
	}
	s, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		return &exitError{code: exitNotOK, err: err}
	}
	err = fn(s)
	if cerr := s.Close(); err == nil && cerr != nil {
		err = cerr
	}
	var ee *exitError
	if err != nil && !errors.As(err, &ee) {
		err = &exitError{code: exitNotOK, err: err}
	}
	return err
}
