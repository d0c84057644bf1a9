// Package prometheus runs a real Prometheus server for tests: the binary
// `make tools` builds into bin/ (or $TFGEN_BIN), on a free port of
// 127.0.0.1, with its storage and log in the test's temporary directory,
// scraping the given targets every second as job "tfgen". There is no fake:
// if the binary is missing, Start fails the test and says so.
//
//	srv := prometheus.Start(t, "127.0.0.1:8080") // stopped at t.Cleanup
//	srv.WaitScrape(t)                            // a scrape begun after this call is stored
//	got, err := srv.Query(ctx, `sum by (framework) (tfgen_jobs)`)
//	// got: map[{framework="tensorflow"}:2]
//
// WaitScrape and WaitUp are how a test knows Prometheus has seen a change
// (no sleeps): they poll until every target (or one) has a scrape that began
// after the call, read from the samples of `up`, which Prometheus stores in
// the same commit as the scraped ones. The log is printed if the test fails.
package prometheus
