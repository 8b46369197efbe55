#pragma once
/// Blocking signals for a scope: the temporary files of an output set (atomic_file.cpp) and
/// the terminal of --present (cli/console.cpp) each block the signals they handle while their
/// state changes, so that no handler runs halfway through.

#include <csignal>

namespace attn {

/// Blocks `set` for its lifetime (pthread_sigmask), then restores the mask it found.
class SignalsBlocked {
  public:
    explicit SignalsBlocked(const sigset_t& set) {
        (void)::pthread_sigmask(SIG_BLOCK, &set, &old_);
    }
    SignalsBlocked(const SignalsBlocked&) = delete;
    SignalsBlocked& operator=(const SignalsBlocked&) = delete;
    SignalsBlocked(SignalsBlocked&&) = delete;
    SignalsBlocked& operator=(SignalsBlocked&&) = delete;
    ~SignalsBlocked() { (void)::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

  private:
    sigset_t old_{};
};

}  // namespace attn
