! Reads back, with xios_is_defined_axis_attr and xios_get_axis_attr, an
! attribute foehn keeps without acting on it (n_distributed_partition, one
! line of src/config/xios_attributes.tsv), before and after close of definition.
program xios_attributes_model
  use mpi
  use xios
  implicit none
  integer :: comm, ierr, partitions
  logical :: on_lev, on_plev

  call xios_initialize("attributes", return_comm=comm)
  call xios_context_initialize("atm", comm)
  call xios_is_defined_axis_attr("lev", n_distributed_partition=on_lev)
  call xios_is_defined_axis_attr("plev", n_distributed_partition=on_plev)
  if (.not. on_lev .or. on_plev) error stop "xios_attributes_model: n_distributed_partition: wrong is_defined"
  call xios_get_axis_attr("lev", n_distributed_partition=partitions)
  if (partitions /= 4) error stop "xios_attributes_model: n_distributed_partition is not 4"
  call xios_close_context_definition()
  partitions = 0
  call xios_get_axis_attr("lev", n_distributed_partition=partitions)
  if (partitions /= 4) error stop "xios_attributes_model: n_distributed_partition is not 4 after close"
  call xios_context_finalize()
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()
  print "(a)", "xios_attributes_model: OK"
end program xios_attributes_model
