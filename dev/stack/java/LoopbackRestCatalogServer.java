// Starts Apache Iceberg's reference REST catalog (iceberg-open-api fat jar, RESTCatalogServer) bound
// to one host (default 127.0.0.1). Dev tooling for the local stack; not part of the product.
//
// Why: RESTCatalogServer.start() builds `new org.eclipse.jetty.server.Server(port)`, which binds
// every interface, and reads no host setting (iceberg 1.10.1, verified with javap). This launcher
// repeats that start sequence (same backend catalog, adapter, servlet, gzip handler, reuse-port)
// with a ServerConnector whose host is set, so the port is never open on 0.0.0.0.
// The classes it needs are package-private, hence the reflection.
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Map;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.gzip.GzipHandler;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

public final class LoopbackRestCatalogServer {
  private LoopbackRestCatalogServer() {}

  public static void main(String[] args) throws Exception {
    String host = System.getProperty("rest.host", "127.0.0.1");

    Class<?> serverClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServer");
    Constructor<?> serverCtor = serverClass.getDeclaredConstructor();
    serverCtor.setAccessible(true);
    Object restServer = serverCtor.newInstance();

    // CatalogContext initializeBackendCatalog(): CATALOG_* environment → JdbcCatalog (or catalog-impl).
    Method init = serverClass.getDeclaredMethod("initializeBackendCatalog");
    init.setAccessible(true);
    Object catalogContext = init.invoke(restServer);

    Class<?> contextClass = Class.forName("org.apache.iceberg.rest.RESTCatalogServer$CatalogContext");
    Method configuration = contextClass.getDeclaredMethod("configuration");
    configuration.setAccessible(true);
    @SuppressWarnings("unchecked")
    Map<String, String> conf = (Map<String, String>) configuration.invoke(catalogContext);
    int port = Integer.parseInt(conf.getOrDefault("rest.port", "8181"));

    Class<?> adapterClass = Class.forName("org.apache.iceberg.rest.RESTServerCatalogAdapter");
    Constructor<?> adapterCtor = adapterClass.getDeclaredConstructor(contextClass);
    adapterCtor.setAccessible(true);
    RESTCatalogAdapter adapter = (RESTCatalogAdapter) adapterCtor.newInstance(catalogContext);

    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
    context.insertHandler(new GzipHandler());

    Server http = new Server();
    ServerConnector connector = new ServerConnector(http);
    connector.setHost(host);
    connector.setPort(port);
    connector.setReusePort(true);
    http.addConnector(connector);
    http.setHandler(context);
    http.start();
    System.err.println("LoopbackRestCatalogServer: listening on " + host + ":" + port);
    http.join();
  }
}
