// cpp_raii: zchan from C++17. The C headers are included as they are; a small RAII
// wrapper (zchan_raii.hpp) gives typed handles that clone on copy and drop on destruction, blocking
// send/recv returning std::optional, and a receive future that cancels itself when it
// goes out of scope (cancel safety: a cancelled receive took nothing).
//
// Three std::threads send 1000 points each through copies of one sender; the main
// thread receives until the channel closes (when the last copy is destroyed) and checks
// that every point came exactly once and each producer's points in order. Then a
// pending receive future is abandoned to its destructor, and the next message still
// reaches the next receive.
//
// Exits 0 if all that holds, 1 otherwise.
#include <zchan/zchan.h>

#include <cstdio>
#include <thread>
#include <utility>
#include <vector>

#include "zchan_raii.hpp"

namespace {

struct point {
    unsigned producer;
    unsigned seq;
};

constexpr unsigned kProducers = 3, kPoints = 1000;

// A waker that only remembers that it was called.
struct flag_waker {
    bool woken = false;
    static void wake(void *ctx) { static_cast<flag_waker *>(ctx)->woken = true; }
    zc_waker waker() { return zc_waker{&flag_waker::wake, this}; }
};

}  // namespace

int main() {
    int failures = 0;
    {
        auto [tx, rx] = zc::bounded<point>(8);
        std::vector<std::thread> producers;
        for (unsigned p = 0; p < kProducers; p++)
            producers.emplace_back([p, mine = tx]() mutable {  // a copy: a clone per thread
                for (unsigned i = 0; i < kPoints; i++) mine.send(point{p, i});
            });
        { auto gone = std::move(tx); }  // main's own sender: dropped now

        std::vector<unsigned> next(kProducers, 0);
        unsigned received = 0;
        while (auto pt = rx.recv()) {  // nullopt once every copy of tx is gone
            if (pt->producer >= kProducers || pt->seq != next[pt->producer]++) failures++;
            received++;
        }
        for (auto &t : producers) t.join();
        std::printf("cpp_raii: received %u of %u points, each producer's in order: %s\n",
                    received, kProducers * kPoints, failures ? "no" : "yes");
        if (received != kProducers * kPoints) failures++;
    }
    {
        auto [tx, rx] = zc::bounded<int>(1);
        flag_waker fw;
        int out = 0;
        {
            zc::recv_future<int> f(rx);
            if (f.poll(fw.waker(), out) != ZC_PENDING) failures++;
        }  // destroyed while pending: cancelled, took nothing, will not wake fw
        if (tx.try_send(42) != ZC_OK) failures++;
        auto got = rx.try_recv();
        bool ok = got && *got == 42 && !fw.woken;
        std::printf("cpp_raii: an abandoned receive future took nothing: %s\n", ok ? "yes" : "no");
        if (!ok) failures++;
    }
    std::printf("cpp_raii: %s\n", failures ? "FAILED" : "all as expected");
    return failures ? 1 : 0;
}
