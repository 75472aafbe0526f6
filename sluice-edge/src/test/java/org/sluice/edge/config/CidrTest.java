package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.net.Inet6Address;
import java.net.InetAddress;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class CidrTest {

    private static InetAddress ip(String text) {
        InetAddress a = IpLiterals.parse(text);
        assertThat(a).as(text).isNotNull();
        return a;
    }

    @Test
    void ipv4Networks() {
        Cidr c = Cidr.parse("10.0.0.0/8");
        assertThat(c.contains(ip("10.255.1.2"))).isTrue();
        assertThat(c.contains(ip("11.0.0.0"))).isFalse();
        assertThat(c.contains(ip("9.255.255.255"))).isFalse();
        assertThat(c.v4()).isTrue();
        assertThat(c).hasToString("10.0.0.0/8");
    }

    @Test
    void aBareAddressIsANetworkOfOne() {
        Cidr v4 = Cidr.parse("192.0.2.7");
        assertThat(v4.prefixLength()).isEqualTo(32);
        assertThat(v4.contains(ip("192.0.2.7"))).isTrue();
        assertThat(v4.contains(ip("192.0.2.8"))).isFalse();
        Cidr v6 = Cidr.parse("2001:db8::1");
        assertThat(v6.prefixLength()).isEqualTo(128);
        assertThat(v6.contains(ip("2001:db8::1"))).isTrue();
        assertThat(v6.contains(ip("2001:db8::2"))).isFalse();
    }

    @Test
    void ipv6Networks() {
        Cidr c = Cidr.parse("2001:db8:aa::/48");
        assertThat(c.contains(ip("2001:db8:aa:ffff::1"))).isTrue();
        assertThat(c.contains(ip("2001:db8:ab::1"))).isFalse();
        assertThat(c.contains(ip("10.0.0.1"))).isFalse();
        assertThat(c).hasToString("2001:db8:aa::/48");
        assertThat(Cidr.parse("fd00::/8").contains(ip("fdff:1::"))).isTrue();
        assertThat(Cidr.parse("fd00::/8").contains(ip("fe00::"))).isFalse();
    }

    @Test
    void zeroPrefixesMatchTheirWholeFamily() {
        assertThat(Cidr.parse("0.0.0.0/0").contains(ip("203.0.113.9"))).isTrue();
        assertThat(Cidr.parse("0.0.0.0/0").contains(ip("::1"))).isFalse();
        assertThat(Cidr.parse("::/0").contains(ip("2001:db8::1"))).isTrue();
        assertThat(Cidr.parse("::/0").contains(ip("203.0.113.9"))).isFalse();
    }

    @Test
    void aMappedAddressCountsAsIpv4() throws Exception {
        Cidr c = Cidr.parse("10.0.0.0/8");
        // The JDK folds ::ffff:a.b.c.d to IPv4 itself; an Inet6Address built from raw bytes is not folded.
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = 10;
        mapped[15] = 5;
        InetAddress raw = Inet6Address.getByAddress(null, mapped, -1);
        assertThat(raw.getAddress()).hasSize(16);
        assertThat(c.contains(raw)).isTrue();
        assertThat(IpLiterals.unmap(raw)).isEqualTo(ip("10.0.0.5"));
        assertThat(Cidr.parse("2001:db8::/32").contains(raw)).isFalse();
    }

    @Test
    void aMappedNetworkIsTheIpv4NetworkItMaps() {
        Cidr c = Cidr.parse("::ffff:10.0.0.0/104");
        assertThat(c.v4()).isTrue();
        assertThat(c).hasToString("10.0.0.0/8");
        assertThat(c.contains(ip("10.9.9.9"))).isTrue();
        assertThatThrownBy(() -> Cidr.parse("::ffff:10.0.0.0/64"))
                .hasMessage("an IPv4-mapped network needs a prefix of at least 96");
    }

    @Test
    void badNetworksAreRefusedWithAReason() {
        assertThatThrownBy(() -> Cidr.parse("10.1.0.0/8")).hasMessage("host bits are set; the network is 10.0.0.0/8");
        assertThatThrownBy(() -> Cidr.parse("2001:db8::1/32")).hasMessage("host bits are set; the network is 2001:db8::/32");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).hasMessage("the prefix length must be a number from 0 to 32");
        assertThatThrownBy(() -> Cidr.parse("::/129")).hasMessage("the prefix length must be a number from 0 to 128");
        assertThatThrownBy(() -> Cidr.parse("10.0.0/8")).hasMessage("\"10.0.0\" is not an IP address");
        assertThatThrownBy(() -> Cidr.parse("localhost")).hasMessage("\"localhost\" is not an IP address");
        assertThatThrownBy(() -> Cidr.parse("010.0.0.0/8")).hasMessage("\"010.0.0.0\" is not an IP address");
    }

    @Test
    void literalsNeverResolveNames() {
        assertThat(IpLiterals.parse("localhost")).isNull();
        assertThat(IpLiterals.parse("example.invalid")).isNull();
        assertThat(IpLiterals.parse("fe80::1%eth0")).isNull();
        assertThat(IpLiterals.parse("2001:db8::zz")).isNull();
        assertThat(IpLiterals.parse("1.2.3.4.5")).isNull();
        assertThat(IpLiterals.parse("256.1.1.1")).isNull();
        assertThat(IpLiterals.parse("")).isNull();
        assertThat(IpLiterals.parse("::ffff:1.2.3.4")).isEqualTo(ip("1.2.3.4"));
    }

    @Test
    void aSetMatchesAnyOfItsNetworks() {
        CidrSet set = CidrSet.parse("10.0.0.0/8", "fd00::/8");
        assertThat(set.contains(ip("10.1.1.1"))).isTrue();
        assertThat(set.contains(ip("fd12::1"))).isTrue();
        assertThat(set.contains(ip("192.168.1.1"))).isFalse();
        assertThat(CidrSet.empty().contains(ip("10.1.1.1"))).isFalse();
        assertThat(CidrSet.empty().isEmpty()).isTrue();
    }

    /** contains() against plain big-integer arithmetic, for every IPv6 prefix length. */
    @Property(tries = 500)
    void ipv6ContainsAgreesWithBigIntegerMasking(@ForAll byte[] seedNet, @ForAll byte[] seedAddr,
                                                 @ForAll @IntRange(min = 0, max = 128) int prefix) throws Exception {
        byte[] net = sixteen(seedNet);
        net[0] = (byte) 0x20; // stay clear of the IPv4-mapped range
        byte[] addr = sixteen(seedAddr);
        addr[0] = (byte) (seedAddr.length % 2 == 0 ? 0x20 : 0x30);
        BigInteger mask = prefix == 0 ? BigInteger.ZERO
                : BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE).shiftRight(128 - prefix).shiftLeft(128 - prefix);
        BigInteger netValue = new BigInteger(1, net).and(mask);
        byte[] netBytes = toBytes(netValue);
        String text = InetAddress.getByAddress(netBytes).getHostAddress() + "/" + prefix;
        Cidr c = Cidr.parse(text);
        boolean expected = new BigInteger(1, addr).and(mask).equals(netValue);
        assertThat(c.contains(InetAddress.getByAddress(addr))).isEqualTo(expected);
        // The network's own address is always inside it.
        assertThat(c.contains(InetAddress.getByAddress(netBytes))).isTrue();
    }

    @Property(tries = 500)
    void ipv4ContainsAgreesWithIntegerMasking(@ForAll int net, @ForAll int addr,
                                              @ForAll @IntRange(min = 0, max = 32) int prefix) throws Exception {
        int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
        int network = net & mask;
        Cidr c = Cidr.parse(InetAddress.getByAddress(v4(network)).getHostAddress() + "/" + prefix);
        assertThat(c.contains(InetAddress.getByAddress(v4(addr)))).isEqualTo((addr & mask) == network);
    }

    private static byte[] v4(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    private static byte[] sixteen(byte[] seed) {
        byte[] out = new byte[16];
        for (int i = 0; i < 16; i++) {
            out[i] = seed.length == 0 ? (byte) (i * 37) : (byte) (seed[i % seed.length] + i * 31);
        }
        return out;
    }

    private static byte[] toBytes(BigInteger v) {
        byte[] raw = v.toByteArray();
        byte[] out = new byte[16];
        int n = Math.min(raw.length, 16);
        System.arraycopy(raw, raw.length - n, out, 16 - n, n);
        return out;
    }
}
