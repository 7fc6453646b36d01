#include "util/fiber.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "util/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define TENGEN_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TENGEN_FIBER_ASAN 1
#endif
#endif
#ifdef TENGEN_FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace tengen {

struct Fiber::Context {
  std::function<void()> body;
  ucontext_t fiber{};
  ucontext_t caller{};
  void* mapping = nullptr;  // guard page + stack
  size_t mapping_bytes = 0;
  size_t guard_bytes = 0;
  bool started = false;
  bool running = false;
  bool finished = false;
  std::exception_ptr error;
#ifdef TENGEN_FIBER_ASAN
  void* fake_stack = nullptr;
  const void* caller_stack = nullptr;
  size_t caller_stack_bytes = 0;
#endif

  void* stack_bottom() const { return static_cast<char*>(mapping) + guard_bytes; }
  size_t stack_bytes() const { return mapping_bytes - guard_bytes; }

  // Switches from the caller's stack to the fiber's (Resume) or back (Suspend, the end).
  void SwitchIn() {
#ifdef TENGEN_FIBER_ASAN
    __sanitizer_start_switch_fiber(&fake_stack, stack_bottom(), stack_bytes());
#endif
    if (swapcontext(&caller, &fiber) != 0) throw Error("fiber: swapcontext failed");
#ifdef TENGEN_FIBER_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
  }
  void SwitchOut(bool last) {
#ifdef TENGEN_FIBER_ASAN
    __sanitizer_start_switch_fiber(last ? nullptr : &fake_stack, caller_stack, caller_stack_bytes);
#else
    (void)last;
#endif
    swapcontext(&fiber, &caller);
#ifdef TENGEN_FIBER_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, &caller_stack, &caller_stack_bytes);
#endif
  }

  static void Entry(unsigned int high, unsigned int low) {
    auto* self = reinterpret_cast<Context*>((static_cast<uintptr_t>(high) << 32) | low);
#ifdef TENGEN_FIBER_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &self->caller_stack, &self->caller_stack_bytes);
#endif
    try {
      self->body();
    } catch (...) {
      self->error = std::current_exception();
    }
    self->finished = true;
    self->running = false;
    self->SwitchOut(true);
  }
};

Fiber::Fiber(std::function<void()> body, size_t stack_bytes) : context_(new Context) {
  Context& c = *context_;
  c.body = std::move(body);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  c.guard_bytes = page;
  c.mapping_bytes = page + (stack_bytes + page - 1) / page * page;
  c.mapping = mmap(nullptr, c.mapping_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (c.mapping == MAP_FAILED) {
    throw Error("fiber: cannot map a stack of " + std::to_string(c.mapping_bytes) +
                " bytes: " + std::strerror(errno));
  }
  if (mprotect(c.mapping, c.guard_bytes, PROT_NONE) != 0) {
    const int error = errno;
    munmap(c.mapping, c.mapping_bytes);
    throw Error(std::string("fiber: cannot protect the stack's guard page: ") +
                std::strerror(error));
  }
}

Fiber::~Fiber() {
  // A started, unfinished fiber leaks what its stack holds; callers run bodies to the end.
  munmap(context_->mapping, context_->mapping_bytes);
}

void Fiber::Resume() {
  Context& c = *context_;
  TENGEN_CHECK(!c.finished, "resuming a finished fiber");
  TENGEN_CHECK(!c.running, "resuming a running fiber");
  if (!c.started) {
    c.started = true;
    if (getcontext(&c.fiber) != 0) throw Error("fiber: getcontext failed");
    c.fiber.uc_stack.ss_sp = c.stack_bottom();
    c.fiber.uc_stack.ss_size = c.stack_bytes();
    c.fiber.uc_link = nullptr;
    const auto address = reinterpret_cast<uintptr_t>(&c);
    makecontext(&c.fiber, reinterpret_cast<void (*)()>(&Context::Entry), 2,
                static_cast<unsigned int>(address >> 32),
                static_cast<unsigned int>(address & 0xffffffffu));
  }
  c.running = true;
  c.SwitchIn();
  if (c.finished && c.error) std::rethrow_exception(std::exchange(c.error, nullptr));
}

void Fiber::Suspend() {
  Context& c = *context_;
  TENGEN_CHECK(c.running, "suspending a fiber that is not running");
  c.running = false;
  c.SwitchOut(false);
}

bool Fiber::finished() const { return context_->finished; }

}  // namespace tengen
