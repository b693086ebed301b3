// zchan_raii.hpp: a small RAII wrapper for zchan's MPMC channels in C++17, the one
// cpp_raii.cpp shows (docs/embedding.md, "C++17"). An example to copy, not an installed
// header: typed handles that clone on copy and drop on destruction, blocking send/recv
// returning std::optional, and a receive future that cancels itself when it goes out of
// scope (cancel safety: a cancelled receive took nothing).
#ifndef ZCHAN_RAII_HPP
#define ZCHAN_RAII_HPP

#include <zchan/zchan.h>

#include <cstddef>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

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

    // The next message; std::nullopt once the channel is closed and drained (or if this
    // receiver was moved from: it holds no handle then).
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
    zc_status s = zc_bounded(cap, &cfg, &tx, &rx);
    if (s == ZC_EINVAL) throw std::invalid_argument("zc::bounded: capacity 0, or too large");
    if (s != ZC_OK) throw std::bad_alloc();
    return {sender<T>(tx), receiver<T>(rx)};
}

// A receive future that cancels itself on destruction. Neither copyable nor movable: a
// pending future must stay where it is. It uses rx's handle, so rx must outlive it and
// must not be assigned to meanwhile (which drops that handle).
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

#endif  // ZCHAN_RAII_HPP
