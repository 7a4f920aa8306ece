package lakehouse.connect;

import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import org.sparkproject.connect.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import org.sparkproject.connect.grpc.Grpc;
import org.sparkproject.connect.grpc.Metadata;
import org.sparkproject.connect.grpc.ServerCall;
import org.sparkproject.connect.grpc.ServerCallHandler;
import org.sparkproject.connect.grpc.ServerInterceptor;
import org.sparkproject.connect.grpc.Status;

/**
 * The gate of a lake's warm Spark server (warm/server.py): the dbt processes
 * of the user who started it, and no one else.
 *
 * Spark 3.5's Connect service listens on every interface of the machine and
 * authenticates no one. Named in spark.connect.grpc.interceptor.classes, this
 * refuses every call that does not come from a loopback address or does not
 * carry the server's token in the x-lakehouse-token header. The token is
 * random per server, handed to the JVM as a system property set at run time
 * (never on a command line), and read by clients from the lake's state file
 * (mode 0600). With no token set the gate is closed to everyone.
 *
 * It also clears the calling thread's active Spark session before the call
 * runs: Connect makes each new client session from SparkSession.active,
 * which a thread inherits from the thread that made it, so a thread made
 * before the server moved to another lake (warm/server.py) would answer
 * with the last lake's session rather than the default one, the current
 * lake's.
 *
 * The gRPC classes are the shaded copy the Connect jar is built on.
 */
public final class WarmServerGuard implements ServerInterceptor {
  public static final String TOKEN_PROPERTY = "lakehouse.warm.token";

  private static final Metadata.Key<String> TOKEN_HEADER =
      Metadata.Key.of("x-lakehouse-token", Metadata.ASCII_STRING_MARSHALLER);

  // Compared as digests: equal length, so the comparison time says nothing
  // about the token.
  private final byte[] expected;

  public WarmServerGuard() {
    String token = System.getProperty(TOKEN_PROPERTY, "");
    expected = token.isEmpty() ? null : sha256(token);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    if (!fromLoopback(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR))) {
      return deny(call, Status.PERMISSION_DENIED, "a warm lake server admits loopback clients only");
    }
    String given = headers.get(TOKEN_HEADER);
    if (expected == null || given == null || !MessageDigest.isEqual(expected, sha256(given))) {
      return deny(call, Status.UNAUTHENTICATED, "missing or wrong warm server token");
    }
    clearActiveSession();
    return new SimpleForwardingServerCallListener<Q>(next.startCall(call, headers)) {
      @Override
      public void onMessage(Q message) {
        clearActiveSession();
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        clearActiveSession();
        super.onHalfClose();
      }
    };
  }

  // Found by name: this class compiles against the Connect jar alone.
  private static final Method CLEAR_ACTIVE_SESSION = clearActiveSessionMethod();

  private static Method clearActiveSessionMethod() {
    try {
      return Class.forName("org.apache.spark.sql.SparkSession").getMethod("clearActiveSession");
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Spark's SparkSession is not on the class path", e);
    }
  }

  private static void clearActiveSession() {
    try {
      CLEAR_ACTIVE_SESSION.invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean fromLoopback(SocketAddress remote) {
    if (!(remote instanceof InetSocketAddress)) {
      return false;
    }
    InetAddress address = ((InetSocketAddress) remote).getAddress();
    return address != null && address.isLoopbackAddress();
  }

  private static <Q, R> ServerCall.Listener<Q> deny(
      ServerCall<Q, R> call, Status status, String why) {
    call.close(status.withDescription(why), new Metadata());
    return new ServerCall.Listener<Q>() {};
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
