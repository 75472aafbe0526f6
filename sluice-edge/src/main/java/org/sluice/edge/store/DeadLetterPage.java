package org.sluice.edge.store;

import java.util.List;

/**
 * One page of dead letters, in hook commit order.
 *
 * @param rows the dead deliveries
 * @param next the last row's hook id when more dead letters existed after the page when it was read, else null
 */
public record DeadLetterPage(List<DeliveryRow> rows, String next) {

    public DeadLetterPage {
        rows = List.copyOf(rows);
    }
}
