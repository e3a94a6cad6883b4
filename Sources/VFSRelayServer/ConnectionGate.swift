import HummingbirdCore
import NIOConcurrencyHelpers
import NIOCore

/// The connections each client address holds now, shared by every connection's gate.
final class ConnectionsByAddress: Sendable {
    let limit: Int
    private let counts = NIOLockedValueBox([String: Int]())

    init(limit: Int) { self.limit = limit }

    /// Takes a place for `address`; false, taking none, when it holds `limit` already.
    func open(_ address: String) -> Bool {
        counts.withLockedValue { counts in
            let held = counts[address, default: 0]
            guard held < limit else { return false }
            counts[address] = held + 1
            return true
        }
    }

    func close(_ address: String) {
        counts.withLockedValue { counts in
            let held = counts[address, default: 1] - 1
            counts[address] = held > 0 ? held : nil
        }
    }
}

/// Each connection's first handler after HTTP decoding: closes it at once when its address
/// holds `--max-connections-per-address` already (nginx's `limit_conn`), and when its first
/// request head has not arrived `--first-request-timeout` after it opened (nginx's
/// `client_header_timeout`). So one address's idle connections cannot fill
/// `--max-connections` and leave everyone else waiting in the listen backlog. The trusted
/// proxies' connections are not counted: each of them carries many clients.
final class ConnectionGate: ChannelInboundHandler, RemovableChannelHandler {
    /// HTTP/1 request parts (head, body, end), named as Hummingbird's own handler after this one does.
    typealias InboundIn = HTTPConnectionStateHandler.InboundIn
    typealias InboundOut = HTTPConnectionStateHandler.InboundIn

    let connections: ConnectionsByAddress
    let exempt: [CIDR]
    let firstRequestTimeout: TimeAmount
    let metrics: RelayMetrics
    private var started = false
    private var address: String?
    private var deadline: Scheduled<Void>?

    init(connections: ConnectionsByAddress, exempt: [CIDR], firstRequestTimeout: TimeAmount, metrics: RelayMetrics) {
        (self.connections, self.exempt, self.firstRequestTimeout, self.metrics) = (connections, exempt, firstRequestTimeout, metrics)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        start(context)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        if let peer = context.channel.remoteAddress?.ipAddress, !exempt.contains(where: { $0.contains(peer) }) {
            guard connections.open(peer) else {
                metrics.connectionsOverAddressCap.increment()
                context.close(promise: nil)
                return
            }
            address = peer
        }
        let (channel, late) = (context.channel, metrics.connectionsWithoutRequest)
        deadline = context.eventLoop.scheduleTask(in: firstRequestTimeout) {
            late.increment()
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadline != nil, case .head = unwrapInboundIn(data) {
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { end() }

    /// Gives the address's place back and drops the deadline, once.
    private func end() {
        deadline?.cancel()
        deadline = nil
        if let address { connections.close(address) }
        address = nil
    }
}
