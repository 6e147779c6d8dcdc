import Foundation
import Glibc
import LocSystem
import Synchronization
import Testing

@Suite struct FileDescriptorTests {
  /// One end of a socket pair whose other end is gone: send(2) fails with EPIPE (unix(7)),
  /// whatever number the gone end had or has now. So "closed" is checked on the kernel's
  /// object, not on a descriptor number another test may have been given meanwhile.
  static func peerIsClosed(_ socket: borrowing FileDescriptor) -> Bool {
    do {
      _ = try socket.send([1])
      return false
    } catch {
      return error.code == EPIPE
    }
  }

  @Test func closesWhenItsLifeEnds() throws {
    let pair = try DescriptorPair.socketPair()
    let first = pair.first
    let second = pair.second
    let openBefore = !FileDescriptorTests.peerIsClosed(second)
    _ = consume first  // its life ends here: deinit closes it
    let closedAfter = FileDescriptorTests.peerIsClosed(second)
    #expect(openBefore)
    #expect(closedAfter)
  }

  @Test func anExplicitCloseIsTheOnlyClose() throws {
    let pair = try DescriptorPair.socketPair()
    let first = pair.first
    let second = pair.second
    // close() consumes the value, so no deinit follows it: were there a second close(2),
    // it would find the number closed (EBADF) and trap, ending this test process.
    try first.close()
    let closed = FileDescriptorTests.peerIsClosed(second)
    #expect(closed)
  }

  @Test func closingANumberItDoesNotOwnIsTrappedAsABug() async {
    // Someone closed the number behind the owner's back; the owner's close finds EBADF, a
    // double close, and traps instead of closing whatever the number means by then.
    await #expect(processExitsWith: .failure) {
      let pair = try DescriptorPair.pipe()
      let reader = pair.first
      _ = Glibc.close(reader.rawValue)
      _ = consume reader
    }
  }

  @Test func standardInputIsDuplicatedNotTaken() throws {
    let copy = try FileDescriptor.duplicatingStandardInput()
    #expect(copy.rawValue > 2)
    try copy.close()
    #expect(fcntl(STDIN_FILENO, F_GETFD) != -1)
  }
}

/// The write end of the pipe the SIGUSR1 handler writes to (a handler cannot capture).
private let interruptWriter = Atomic<Int32>(-1)
/// How often the handler ran.
private let interruptsHandled = Atomic<Int>(0)

@Suite(.serialized) struct InterruptedCallTests {
  /// read(2)'s system call number (asm/unistd.h: 0 on x86-64, 63 in the generic table of
  /// arm64 and riscv64).
  #if arch(x86_64)
    static let readSyscall = "0"
  #else
    static let readSyscall = "63"
  #endif

  /// The calling thread's id (the last part of /proc/thread-self, proc(5)).
  static func threadID() -> String? {
    var buffer = [UInt8](repeating: 0, count: 128)
    let n = buffer.withUnsafeMutableBufferPointer { b in
      b.withMemoryRebound(to: CChar.self) { readlink("/proc/thread-self", $0.baseAddress!, $0.count) }
    }
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "/").last.map(String.init)
  }

  /// Whether thread `tid` waits in read(2) on `descriptor` now (proc(5),
  /// /proc/self/task/TID/syscall: the call's number, then its arguments in hex).
  static func isReading(tid: String, descriptor: Int32) -> Bool {
    guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/syscall", encoding: .utf8) else {
      return false
    }
    let fields = text.split(separator: " ")
    return fields.count > 1 && fields[0] == readSyscall && fields[1] == "0x" + String(descriptor, radix: 16)
  }

  @Test func aReadInterruptedByASignalIsRetried() throws {
    // A handler without SA_RESTART: a signal that arrives while read(2) waits on an empty
    // pipe makes it fail with EINTR (signal(7), "Interruption of system calls").
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in
      interruptsHandled.add(1, ordering: .relaxed)
      var byte: UInt8 = 0x2A
      _ = Glibc.write(interruptWriter.load(ordering: .relaxed), &byte, 1)
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    var previous = sigaction()
    #expect(sigaction(SIGUSR1, &action, &previous) == 0)
    defer { sigaction(SIGUSR1, &previous, nil) }
    var unblock = sigset_t()
    sigemptyset(&unblock)
    sigaddset(&unblock, SIGUSR1)
    pthread_sigmask(SIG_UNBLOCK, &unblock, nil)

    let pipe = try DescriptorPair.pipe()
    let reader = pipe.first
    let writer = pipe.second
    interruptWriter.store(writer.rawValue, ordering: .relaxed)
    interruptsHandled.store(0, ordering: .relaxed)
    let target = pthread_self()
    let tid = try #require(InterruptedCallTests.threadID())
    let readerNumber = reader.rawValue
    let sawTheReadWaiting = Atomic<Bool>(false)
    // The signal is sent only once this thread waits inside read(2), so it interrupts the
    // call rather than arriving before it; the handler then writes the byte to be read.
    Thread.detachNewThread {
      let deadline = Date().addingTimeInterval(10)
      while Date() < deadline {
        if InterruptedCallTests.isReading(tid: tid, descriptor: readerNumber) {
          sawTheReadWaiting.store(true, ordering: .relaxed)
          pthread_kill(target, SIGUSR1)
          return
        }
        usleep(1000)
      }
      // Never seen waiting: unblock the read without a signal; the test then fails below.
      var byte: UInt8 = 0x2A
      _ = Glibc.write(interruptWriter.load(ordering: .relaxed), &byte, 1)
    }
    var buffer: [UInt8] = [0, 0, 0, 0]
    let n = try buffer.withUnsafeMutableBytes { raw in
      Result { () throws(Errno) in try reader.read(into: raw) }
    }
    .get()
    let waited = sawTheReadWaiting.load(ordering: .relaxed)
    let interrupts = interruptsHandled.load(ordering: .relaxed)
    #expect(waited)
    #expect(interrupts == 1)
    #expect(n == 1 && buffer[0] == 0x2A)
    _ = consume writer
  }
}
