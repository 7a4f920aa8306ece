package adlake.connect;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import org.sparkproject.connect.grpc.Grpc;
import org.sparkproject.connect.grpc.Metadata;
import org.sparkproject.connect.grpc.ServerCall;
import org.sparkproject.connect.grpc.ServerCallHandler;
import org.sparkproject.connect.grpc.ServerInterceptor;
import org.sparkproject.connect.grpc.Status;

/**
 * Who may talk to a Spark 3.5 Connect server started by adlake.servers.spark_server.
 *
 * Spark 3.5's Connect server listens on every interface and checks no one
 * (there is no bind-address setting before Spark 4.0). This interceptor, named
 * in spark.connect.grpc.interceptor.classes, admits a call only from a
 * loopback address; when the server was started with a token
 * (LAKEHOUSE_CONNECT_TOKEN in its environment), the call must also carry it as
 * "authorization: Bearer <token>". Remote clients reach a server with a token
 * through the TLS front (adlake.servers.tls_front), itself a loopback client.
 * The grpc classes are Spark's shaded copy, the ones its server is built on.
 */
public final class LoopbackOrTokenInterceptor implements ServerInterceptor {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  // A digest, so that the comparison below takes the same time for every
  // wrong token of any length.
  private final byte[] expected;

  public LoopbackOrTokenInterceptor() {
    String token = System.getenv("LAKEHOUSE_CONNECT_TOKEN");
    expected = token == null || token.isEmpty() ? null : digest("Bearer " + token);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    boolean loopback =
        remote instanceof InetSocketAddress
            && ((InetSocketAddress) remote).getAddress() != null
            && ((InetSocketAddress) remote).getAddress().isLoopbackAddress();
    if (!loopback) {
      return refuse(call, Status.PERMISSION_DENIED.withDescription(
          "this Spark Connect server admits loopback clients only; remote clients connect "
              + "through its TLS port with a token (adlake.servers.spark_server --token-env)"));
    }
    if (expected != null) {
      String given = headers.get(AUTHORIZATION);
      if (given == null || !MessageDigest.isEqual(expected, digest(given))) {
        return refuse(call, Status.UNAUTHENTICATED.withDescription(
            "invalid or missing token: set the profile's token to the server's"));
      }
    }
    return next.startCall(call, headers);
  }

  private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<Q>() {};
  }

  private static byte[] digest(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
