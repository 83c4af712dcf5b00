// The footer-thread pool's old module path, kept for its importers (cli/, activities/, bench/): the
// pool lives in threads/.
export { FooterThreads, footerThreadStart, footerThreadsOnEveryCpu, sharedFooterThreads, startFooterThread } from './threads';
