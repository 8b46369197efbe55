#pragma once
// What one function writes, piece by piece, read as a std::istream while it is written (a
// private header of io): verify_dump parses the recomputed dump as render_json writes it, so
// that the dump, which may be far larger than the memory limit, is never held whole.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <istream>
#include <mutex>
#include <streambuf>
#include <string>
#include <string_view>
#include <thread>

namespace attn::io_detail {

/// Runs `write` on a thread of its own and makes what it writes readable from stream(). At
/// most two pieces wait between the threads: the writer waits while they are unread.
class PieceStream {
  public:
    using Sink = std::function<void(std::string_view)>;
    using Write = std::function<void(const Sink&)>;

    explicit PieceStream(Write write);
    PieceStream(const PieceStream&) = delete;
    PieceStream& operator=(const PieceStream&) = delete;
    PieceStream(PieceStream&&) = delete;
    PieceStream& operator=(PieceStream&&) = delete;
    /// Stops the writer if it still writes (its sink throws), and waits for it.
    ~PieceStream();

    /// What `write` writes, in order; at its end when `write` has returned (or thrown).
    [[nodiscard]] std::istream& stream() noexcept { return stream_; }

    /// Waits for the writer and rethrows what it threw, if anything: call it when the
    /// reading stops, by its end or by an error (which may be only a consequence of the
    /// writer's).
    void rethrow_writer_error();

  private:
    class Buffer : public std::streambuf {
      public:
        explicit Buffer(PieceStream& owner) : owner_(owner) {}

      protected:
        int_type underflow() override;

      private:
        PieceStream& owner_;
        std::string current_;
    };
    struct Stopped {};  // thrown by the sink when the reader is gone

    void put(std::string_view piece);  // the writer's sink

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::string> pieces_;
    bool written_ = false;  // the writer has returned
    bool stopped_ = false;  // the reader is gone: the writer's sink throws
    std::exception_ptr error_;
    Buffer buffer_{*this};
    std::istream stream_{&buffer_};
    std::thread writer_;  // last: started when everything else is ready
};

}  // namespace attn::io_detail
