// cpp_raii: zchan from C++17. The C headers are included as they are; a small RAII
// wrapper gives typed handles that clone on copy and drop on destruction, blocking
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
#include <zchan/block.h>
#include <zchan/fd.h>
#include <zchan/zchan.h>

#include <cstdio>
#include <new>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace zc {

// Messages are copied bytewise by the channel.
template <class T>
constexpr bool is_message_v = std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>;

template <class T>
class sender {
    static_assert(is_message_v<T>, "channel messages must be trivially copyable");
    zc_sender *h_ = nullptr;

public:
    explicit sender(zc_sender *h) noexcept : h_(h) {}
    sender(const sender &o) : h_(zc_sender_clone(o.h_)) {}  // another counted handle
    sender(sender &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    sender &operator=(sender o) noexcept {
        std::swap(h_, o.h_);
        return *this;
    }
    ~sender() { zc_sender_drop(h_); }  // the last sender's drop closes the channel

    zc_status try_send(const T &v) { return zc_try_send(h_, &v); }
    zc_status send(const T &v) { return zc_send_blocking(h_, &v); }
    bool close() { return zc_sender_close(h_); }
};

template <class T>
class receiver {
    static_assert(is_message_v<T>, "channel messages must be trivially copyable");
    zc_receiver *h_ = nullptr;

public:
    explicit receiver(zc_receiver *h) noexcept : h_(h) {}
    receiver(const receiver &o) : h_(zc_receiver_clone(o.h_)) {}
    receiver(receiver &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    receiver &operator=(receiver o) noexcept {
        std::swap(h_, o.h_);
        return *this;
    }
    ~receiver() { zc_receiver_drop(h_); }

    // The next message; std::nullopt once the channel is closed and drained.
    std::optional<T> recv() {
        T v;
        if (zc_recv_blocking(h_, &v) != ZC_OK) return std::nullopt;
        return v;
    }
    std::optional<T> try_recv() {
        T v;
        if (zc_try_recv(h_, &v) != ZC_OK) return std::nullopt;
        return v;
    }
    zc_receiver *get() const noexcept { return h_; }
};

template <class T>
std::pair<sender<T>, receiver<T>> bounded(size_t cap) {
    zc_config cfg{};
    cfg.elem_size = sizeof(T);
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(cap, &cfg, &tx, &rx) != ZC_OK) throw std::bad_alloc();
    return {sender<T>(tx), receiver<T>(rx)};
}

// A receive future that cancels itself on destruction. Neither copyable nor movable: a
// pending future must stay where it is.
template <class T>
class recv_future {
    zc_recv f_;

public:
    explicit recv_future(receiver<T> &rx) noexcept { zc_recv_init(&f_, rx.get()); }
    recv_future(const recv_future &) = delete;
    recv_future &operator=(const recv_future &) = delete;
    ~recv_future() { zc_recv_cancel(&f_); }

    zc_status poll(const zc_waker &w, T &out) { return zc_recv_poll(&f_, &w, &out); }
};

}  // namespace zc

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
