#include "piece_stream.hpp"

#include <utility>

namespace attn::io_detail {

namespace {
constexpr std::size_t max_waiting = 2;  // pieces between the writer and the reader
}

PieceStream::PieceStream(Write write)
    : writer_([this, write = std::move(write)] {
          try {
              write([this](std::string_view piece) { put(piece); });
          } catch (const Stopped&) {
              // the reader stopped first: nothing to report
          } catch (...) {
              const std::lock_guard lock(mutex_);
              error_ = std::current_exception();
          }
          const std::lock_guard lock(mutex_);
          written_ = true;
          changed_.notify_all();
      }) {}

PieceStream::~PieceStream() {
    {
        const std::lock_guard lock(mutex_);
        stopped_ = true;
        changed_.notify_all();
    }
    if (writer_.joinable()) {
        writer_.join();
    }
}

void PieceStream::put(std::string_view piece) {
    if (piece.empty()) {
        return;
    }
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return stopped_ || pieces_.size() < max_waiting; });
    if (stopped_) {
        throw Stopped{};
    }
    pieces_.emplace_back(piece);
    changed_.notify_all();
}

void PieceStream::rethrow_writer_error() {
    {
        const std::lock_guard lock(mutex_);
        stopped_ = true;  // whatever the writer still writes is not read
        changed_.notify_all();
    }
    if (writer_.joinable()) {
        writer_.join();
    }
    if (error_) {
        std::rethrow_exception(error_);
    }
}

PieceStream::Buffer::int_type PieceStream::Buffer::underflow() {
    if (gptr() < egptr()) {
        return traits_type::to_int_type(*gptr());
    }
    std::unique_lock lock(owner_.mutex_);
    owner_.changed_.wait(lock, [this] { return !owner_.pieces_.empty() || owner_.written_; });
    if (owner_.pieces_.empty()) {
        return traits_type::eof();
    }
    current_ = std::move(owner_.pieces_.front());
    owner_.pieces_.pop_front();
    owner_.changed_.notify_all();
    setg(current_.data(), current_.data(), current_.data() + current_.size());
    return traits_type::to_int_type(*gptr());
}

}  // namespace attn::io_detail
