// zchan-peers-go: the bench rows for Go channels. Prints row,impl,run,value,unit lines
// on stdout; see bench/go/README.md for the rows, the options and what each row runs.
//
// Goroutines stand in for both threads and tasks; a row's "workers" are GOMAXPROCS:
// the number of CPUs for thread rows and row 13 -mt, 4 for rows 7-9 (as the Rust
// peers' tokio runtime), 1 for row 13 -st and 2 for rows 15-tasks and 17-tasks.
package main

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"
)

// counts are the message counts of a full run; -quick divides each by 10.
type counts struct {
	pairs, batchReps, perSender, manyTotal, selectTotal, rtts int
}

const (
	batch       = 1024
	taskWorkers = 4
)

// job is the work of one goroutine; it returns the sum of the values it received
// (a checksum, as in the C harness; senders return 0).
type job func() uint64

// timeJobs runs each job on its own goroutine with GOMAXPROCS set to procs, releases
// them together and returns the time from the first job's start to the last job's
// finish (each goroutine reads the clock itself, as the C and Rust harnesses do) with
// the sum of the jobs' results. Starting the goroutines is not timed.
func timeJobs(procs int, jobs []job) (time.Duration, uint64) {
	runtime.GOMAXPROCS(procs)
	start := make(chan struct{})
	results := make([]uint64, len(jobs))
	starts := make([]time.Time, len(jobs))
	ends := make([]time.Time, len(jobs))
	var done sync.WaitGroup
	done.Add(len(jobs))
	for i, j := range jobs {
		go func(i int, j job) {
			defer done.Done()
			<-start
			starts[i] = time.Now()
			results[i] = j()
			ends[i] = time.Now()
		}(i, j)
	}
	close(start)
	done.Wait()
	first, last := starts[0], ends[0]
	var sum uint64
	for i, r := range results {
		if starts[i].Before(first) {
			first = starts[i]
		}
		if ends[i].After(last) {
			last = ends[i]
		}
		sum += r
	}
	return last.Sub(first), sum
}

// sender number s (from 0) sends n messages on ch: s*n+1 ... (s+1)*n, values distinct
// across senders and never 0.
func sender(ch chan<- uint64, s, n int) job {
	first := uint64(s)*uint64(n) + 1
	end := first + uint64(n)
	return func() uint64 {
		for v := first; v < end; v++ {
			ch <- v
		}
		return 0
	}
}

// receiver receives from ch until it is closed and returns the sum of the values.
func receiver(ch <-chan uint64) job {
	return func() uint64 {
		var sum uint64
		for v := range ch {
			sum += v
		}
		return sum
	}
}

// sumTo is 1 + 2 + ... + t: the checksum of the distinct values 1 ... t.
func sumTo(t uint64) uint64 { return t * (t + 1) / 2 }

// closer returns jobs that run senders then close ch once the last one is done,
// as Go channels close by the sender side only.
func closer(ch chan uint64, senders []job) []job {
	var left sync.WaitGroup
	left.Add(len(senders))
	jobs := make([]job, len(senders))
	for i, s := range senders {
		s := s
		jobs[i] = func() uint64 {
			r := s()
			left.Done()
			return r
		}
	}
	go func() {
		left.Wait()
		close(ch)
	}()
	return jobs
}

// flow runs senders goroutines sending perSender messages each into one channel of
// capacity capacity read by receivers goroutines; checks the sum of the values.
func flow(procs, capacity, senders, receivers, perSender int) time.Duration {
	ch := make(chan uint64, capacity)
	var sends []job
	for i := 0; i < senders; i++ {
		sends = append(sends, sender(ch, i, perSender))
	}
	jobs := closer(ch, sends)
	for i := 0; i < receivers; i++ {
		jobs = append(jobs, receiver(ch))
	}
	d, sum := timeJobs(procs, jobs)
	mustEqual(sum, sumTo(uint64(senders)*uint64(perSender)))
	return d
}

// merged runs n channels of capacity 1024/n, one sender goroutine each, merged for one
// receiver. Go's select has a fixed set of cases, and reflect.Select over a run-time
// set costs O(n) with allocations per message (row 13c measures it, with fewer
// messages), so this is Go's usual merge: one forwarding goroutine per channel into a merged channel of the
// same capacity. Each message thus crosses two channels.
func merged(procs, n, perSender int) time.Duration {
	out := make(chan uint64, 1024/n)
	var forwards []job
	var jobs []job
	for i := 0; i < n; i++ {
		in := make(chan uint64, 1024/n)
		jobs = append(jobs, closer(in, []job{sender(in, i, perSender)})...)
		forwards = append(forwards, func() uint64 {
			for v := range in {
				out <- v
			}
			return 0
		})
	}
	jobs = append(jobs, closer(out, forwards)...)
	jobs = append(jobs, receiver(out))
	d, sum := timeJobs(procs, jobs)
	mustEqual(sum, sumTo(uint64(n)*uint64(perSender)))
	return d
}

// selected runs n channels of capacity 1024/n, one sender goroutine each, read by one
// receiver goroutine through reflect.Select over all n (Go's select over a set of
// channels known only at run time, the peer of zchan's zc_select in row 13c). A closed
// channel's case is set to the zero Value, which reflect.Select ignores.
func selected(procs, n, perSender int) time.Duration {
	var jobs []job
	cases := make([]reflect.SelectCase, n)
	for i := 0; i < n; i++ {
		in := make(chan uint64, 1024/n)
		jobs = append(jobs, closer(in, []job{sender(in, i, perSender)})...)
		cases[i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(in)}
	}
	jobs = append(jobs, func() uint64 {
		var sum uint64
		for open := n; open > 0; {
			i, v, ok := reflect.Select(cases)
			if !ok {
				cases[i].Chan = reflect.Value{}
				open--
				continue
			}
			sum += v.Uint()
		}
		return sum
	})
	d, sum := timeJobs(procs, jobs)
	mustEqual(sum, sumTo(uint64(n)*uint64(perSender)))
	return d
}

// pingPong bounces one message rtts times between two goroutines over two channels
// of capacity capacity (1 in row 15; 0, unbuffered, in row 17); the pinger sends
// 1 ... rtts, checks that each echo is the value it sent and returns the sum of the
// echoes.
func pingPong(procs, capacity, rtts int) time.Duration {
	ping := make(chan uint64, capacity)
	pong := make(chan uint64, capacity)
	d, sum := timeJobs(procs, []job{
		func() uint64 {
			var sum uint64
			for v := uint64(1); v <= uint64(rtts); v++ {
				ping <- v
				echo := <-pong
				if echo != v {
					panic(fmt.Sprintf("ping-pong echo %d differs from the value sent, %d", echo, v))
				}
				sum += echo
			}
			close(ping)
			return sum
		},
		func() uint64 {
			for v := range ping {
				pong <- v
			}
			return 0
		},
	})
	mustEqual(sum, sumTo(uint64(rtts)))
	return d
}

// pairs sends then receives n times on one goroutine, capacity 1.
func pairs(n int) time.Duration {
	ch := make(chan uint64, 1)
	var sum uint64
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ch <- uint64(i)
		sum += <-ch
	}
	d := time.Since(t0)
	mustEqual(sum, uint64(n)*uint64(n-1)/2)
	return d
}

// batches runs reps times batch non-blocking sends (select with default) then batch
// non-blocking receives on one channel of capacity batch.
func batches(reps int) time.Duration {
	ch := make(chan uint64, batch)
	var sum uint64
	t0 := time.Now()
	for r := 0; r < reps; r++ {
		for i := 0; i < batch; i++ {
			select {
			case ch <- uint64(i):
			default:
				panic("try-send on a channel with room failed")
			}
		}
		for i := 0; i < batch; i++ {
			select {
			case v := <-ch:
				sum += v
			default:
				panic("try-receive on a non-empty channel failed")
			}
		}
	}
	d := time.Since(t0)
	mustEqual(sum, uint64(reps)*batch*(batch-1)/2)
	return d
}

func mustEqual(got, want uint64) {
	if got != want {
		panic(fmt.Sprintf("checksum mismatch (lost or duplicated messages): got %d, want %d", got, want))
	}
}

func nsPer(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / float64(n) }
func ms(d time.Duration) float64           { return float64(d.Nanoseconds()) / 1e6 }

// row is one output row: id, unit, and one run returning the value (nil: not run by Go).
type row struct {
	id, unit string
	run      func(c counts) float64
	why      string // why Go does not run it
}

func rows() []row {
	cpus := runtime.NumCPU()
	noUnbounded := "Go channels are bounded"
	rs := []row{
		{id: "1", unit: "ns_per_pair", run: func(c counts) float64 { return nsPer(pairs(c.pairs), c.pairs) }},
		{id: "2", unit: "ns_per_pair", why: noUnbounded},
		{id: "3", unit: "us_per_batch", run: func(c counts) float64 { return nsPer(batches(c.batchReps), c.batchReps) / 1e3 }},
		{id: "4", unit: "us_per_batch", why: noUnbounded},
		{id: "5", unit: "ms_total", run: func(c counts) float64 { return ms(flow(cpus, 16, 4, 4, c.perSender)) }},
		{id: "6", unit: "ms_total", why: noUnbounded},
		{id: "7", unit: "ms_total", run: func(c counts) float64 { return ms(flow(taskWorkers, 16, 4, 1, c.perSender)) }},
		{id: "8", unit: "ms_total", run: func(c counts) float64 { return ms(flow(taskWorkers, 16, 4, 4, c.perSender)) }},
		{id: "9", unit: "ns_per_msg", run: func(c counts) float64 { return nsPer(flow(taskWorkers, 16, 1, 1, c.perSender), c.perSender) }},
		{id: "10", unit: "ms_total", run: func(c counts) float64 { return ms(flow(cpus, 16, 1, 1, c.perSender)) }},
		{id: "11", unit: "ms_total", run: func(c counts) float64 { return ms(flow(cpus, 1024, 1, 1, c.perSender)) }},
		{id: "12", unit: "ms_total", run: func(c counts) float64 { return ms(flow(cpus, 16, 4, 1, c.perSender)) }},
	}
	for _, variant := range []string{"a", "b", "c"} {
		for _, n := range []int{2, 16, 64, 256, 512} {
			for _, suffix := range []string{"mt", "st"} {
				variant, n := variant, n
				procs := cpus
				if suffix == "st" {
					procs = 1
				}
				rs = append(rs, row{
					id:   fmt.Sprintf("13%s-N%d-%s", variant, n, suffix),
					unit: "ns_per_msg",
					run: func(c counts) float64 {
						per := c.manyTotal / n
						if variant == "c" {
							per = c.selectTotal / n
						}
						switch variant {
						case "a":
							return nsPer(flow(procs, 1024, n, 1, per), n*per)
						case "b":
							return nsPer(merged(procs, n, per), n*per)
						}
						return nsPer(selected(procs, n, per), n*per)
					},
				})
			}
		}
	}
	rs = append(rs,
		row{id: "15-threads", unit: "ns_per_rtt", run: func(c counts) float64 { return nsPer(pingPong(cpus, 1, c.rtts), c.rtts) }},
		row{id: "15-tasks", unit: "ns_per_rtt", run: func(c counts) float64 { return nsPer(pingPong(2, 1, c.rtts), c.rtts) }},
		row{id: "17-threads", unit: "ns_per_rtt", run: func(c counts) float64 { return nsPer(pingPong(cpus, 0, c.rtts), c.rtts) }},
		row{id: "17-tasks", unit: "ns_per_rtt", run: func(c counts) float64 { return nsPer(pingPong(2, 0, c.rtts), c.rtts) }},
	)
	return rs
}

// selects reports whether --rows token t selects row id: the id itself, or a group such
// as 13, 13a, 13b-N64, 15 or 17 (a prefix not followed by a digit).
func selects(t, id string) bool {
	if !strings.HasPrefix(id, t) {
		return false
	}
	rest := id[len(t):]
	return rest == "" || rest[0] < '0' || rest[0] > '9'
}

func main() {
	runs := flag.Int("runs", 0, "measured runs per row (default 7; 3 with --quick)")
	list := flag.String("rows", "", "comma list of row ids (1 ... 12, 13a-N2-mt ... 13c-N512-st, 15-threads, 15-tasks, 17-threads, 17-tasks) or groups (13, 13a, 15, 17); default all")
	quick := flag.Bool("quick", false, "divide message counts by 10")
	listOnly := flag.Bool("list", false, "print the ids of the rows selected that Go runs, one a line, and exit")
	echoPort := flag.Int("echo-server", -1, "serve row 16's echo server on 127.0.0.1:PORT (0: any free port; prints \"port N\") instead of running rows")
	echoSeconds := flag.Int("seconds", 0, "with -echo-server: stop after this many seconds (0: until killed)")
	flag.Parse()
	if *echoPort >= 0 {
		echoServe(*echoPort, *echoSeconds)
		return
	}
	if flag.NArg() > 0 || *runs < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *runs == 0 {
		*runs = 7
		if *quick {
			*runs = 3
		}
	}
	div := 1
	if *quick {
		div = 10
	}
	// The same counts as bench/main.c and bench/rust.
	c := counts{pairs: 1000000 / div, batchReps: 1000 / div, perSender: 10000 / div, manyTotal: (1 << 20) / div, selectTotal: (1 << 14) / div, rtts: 20000 / div}

	all := rows()
	var tokens []string
	for _, t := range strings.Split(*list, ",") {
		if t == "" {
			continue
		}
		known := false
		for _, r := range all {
			known = known || selects(t, r.id)
		}
		if !known {
			fmt.Fprintf(os.Stderr, "zchan-peers-go: unknown row %s\n", t)
			os.Exit(2)
		}
		tokens = append(tokens, t)
	}
	for _, r := range all {
		chosen := len(tokens) == 0
		for _, t := range tokens {
			chosen = chosen || selects(t, r.id)
		}
		if !chosen {
			continue
		}
		if r.run == nil {
			if !*listOnly {
				fmt.Fprintf(os.Stderr, "zchan-peers-go: row %s skipped: %s\n", r.id, r.why)
			}
			continue
		}
		if *listOnly {
			fmt.Println(r.id)
			continue
		}
		r.run(c) // warm-up, not printed
		for run := 1; run <= *runs; run++ {
			fmt.Printf("%s,go,%d,%.3f,%s\n", r.id, run, r.run(c), r.unit)
		}
	}
}
