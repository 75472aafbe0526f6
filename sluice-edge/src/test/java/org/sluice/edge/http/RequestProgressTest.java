package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import org.junit.jupiter.api.Test;

class RequestProgressTest {

    private final RequestProgress progress = new RequestProgress();

    @Test
    void aRequestReadInPartsIsOwedATimeoutUntilItsEnd() {
        assertThat(progress.owesTimeout()).isFalse();
        assertThat(progress.read(head())).isEqualTo(RequestProgress.Read.BEGUN);
        assertThat(progress.owesTimeout()).isTrue();
        assertThat(progress.read(new DefaultHttpContent(Unpooled.EMPTY_BUFFER))).isEqualTo(RequestProgress.Read.NOTHING);
        assertThat(progress.owesTimeout()).isTrue();
        assertThat(progress.read(LastHttpContent.EMPTY_LAST_CONTENT)).isEqualTo(RequestProgress.Read.WHOLE);
        assertThat(progress.owesTimeout()).isFalse();
        assertThat(progress.wrote(response(HttpResponseStatus.ACCEPTED))).isEqualTo(RequestProgress.Write.BETWEEN_REQUESTS);
        assertThat(progress.owesTimeout()).isFalse();
    }

    @Test
    void aFullRequestIsBegunAndWholeAtOnce() {
        DefaultFullHttpRequest full = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/hooks/a",
                Unpooled.EMPTY_BUFFER);
        try {
            assertThat(progress.read(full)).isEqualTo(RequestProgress.Read.WHOLE);
            assertThat(progress.owesTimeout()).isFalse();
        } finally {
            full.release();
        }
    }

    @Test
    void anAnswerWhileTheBodyIsStillComingIsAnEarlyAnswerAndOwesNoTimeout() {
        progress.read(head());
        assertThat(progress.wrote(response(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE)))
                .isEqualTo(RequestProgress.Write.MID_REQUEST);
        assertThat(progress.owesTimeout()).isFalse();
        assertThat(progress.read(LastHttpContent.EMPTY_LAST_CONTENT)).isEqualTo(RequestProgress.Read.WHOLE_ANSWERED);

        // the next request starts afresh
        assertThat(progress.read(head())).isEqualTo(RequestProgress.Read.BEGUN);
        assertThat(progress.owesTimeout()).isTrue();
        assertThat(progress.read(LastHttpContent.EMPTY_LAST_CONTENT)).isEqualTo(RequestProgress.Read.WHOLE);
    }

    @Test
    void aContinueIsNotAnAnswer() {
        progress.read(head());
        assertThat(progress.wrote(response(HttpResponseStatus.CONTINUE))).isEqualTo(RequestProgress.Write.CONTINUE);
        assertThat(progress.owesTimeout()).isTrue();
        assertThat(progress.wrote("not a response")).isEqualTo(RequestProgress.Write.NOTHING);
        assertThat(progress.owesTimeout()).isTrue();
    }

    @Test
    void betweenRequestsNothingIsOwed() {
        progress.read(head());
        progress.between();
        assertThat(progress.owesTimeout()).isFalse();
        assertThat(progress.wrote(response(HttpResponseStatus.OK))).isEqualTo(RequestProgress.Write.BETWEEN_REQUESTS);
    }

    @Test
    void anOwedTimeoutIsA408ThatClosesTheConnection() {
        EmbeddedChannel channel = new EmbeddedChannel();
        RequestProgress.timeOut(channel, true);
        FullHttpResponse written = channel.readOutbound();
        try {
            assertThat(written.status()).isEqualTo(HttpResponseStatus.REQUEST_TIMEOUT);
            assertThat(written.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        } finally {
            written.release();
        }
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void anUnowedTimeoutClosesSilently() {
        EmbeddedChannel channel = new EmbeddedChannel();
        RequestProgress.timeOut(channel, false);
        assertThat((Object) channel.readOutbound()).isNull();
        assertThat(channel.isOpen()).isFalse();
    }

    private static DefaultHttpRequest head() {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/hooks/a");
    }

    private static FullHttpResponse response(HttpResponseStatus status) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER); // nothing to release
    }
}
